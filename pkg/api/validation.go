package api

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Validate returns every problem of a policy, each with its field path:
// negative limits, a nodeSelector that does not parse, metricsProviders
// problems, empty or duplicate profile names, unknown plugin names (in
// pluginConfig and in every plugins.*.enabled/disabled list), a plugin
// enabled at an extension point it does not implement or enabled twice,
// a plugin both enabled and disabled at one point, DefaultEvictor disabled,
// two pluginConfigs for one plugin, and each plugin's own Args.Validate
// errors (under profiles[i].pluginConfig[j].args), and a metrics source
// used by plugin args (MetricsConsumer) without its metricsProviders entry.
//
// Plugin args are validated only when PluginConfig.Decoded is set, as Load
// does; Validate does not decode or default anything.
func Validate(p *DeschedulerPolicy, reg *framework.Registry) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, nonNegative(p.MaxNoOfPodsToEvictPerNode, field.NewPath("maxNoOfPodsToEvictPerNode"))...)
	errs = append(errs, nonNegative(p.MaxNoOfPodsToEvictPerNamespace, field.NewPath("maxNoOfPodsToEvictPerNamespace"))...)
	errs = append(errs, nonNegative(p.MaxNoOfPodsToEvictTotal, field.NewPath("maxNoOfPodsToEvictTotal"))...)
	errs = append(errs, nonNegative(p.GracePeriodSeconds, field.NewPath("gracePeriodSeconds"))...)
	errs = append(errs, validateNodeSelector(p.NodeSelector, field.NewPath("nodeSelector"))...)
	errs = append(errs, validateMetricsProviders(p.MetricsProviders, field.NewPath("metricsProviders"))...)
	errs = append(errs, validateProfiles(p.Profiles, reg, field.NewPath("profiles"))...)
	errs = append(errs, validateMetricsConsumers(p, field.NewPath("profiles"))...)
	return errs
}

// nonNegative rejects a set value below zero.
func nonNegative[T int | int64](v *T, path *field.Path) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(path, *v, "must be greater than or equal to 0")}
	}
	return nil
}

// validateNodeSelector checks the selector's syntax with labels.Parse.
func validateNodeSelector(sel *string, path *field.Path) field.ErrorList {
	if sel == nil {
		return nil
	}
	if _, err := labels.Parse(*sel); err != nil {
		return field.ErrorList{field.Invalid(path, *sel, err.Error())}
	}
	return nil
}

// supportedSources are the metrics sources a policy may configure.
func supportedSources() []MetricsSource {
	return []MetricsSource{SourceKubernetesMetrics, SourcePrometheus}
}

// validateMetricsProviders checks each provider's source (at most one
// provider per source) and the Prometheus connection.
func validateMetricsProviders(providers []MetricsProvider, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[MetricsSource]bool, len(providers))
	for i, mp := range providers {
		p := path.Index(i)
		switch mp.Source {
		case SourceKubernetesMetrics, SourcePrometheus:
			if seen[mp.Source] {
				errs = append(errs, field.Duplicate(p.Child("source"), mp.Source))
			}
			seen[mp.Source] = true
		case "":
			errs = append(errs, field.Required(p.Child("source"), "must be KubernetesMetrics or Prometheus"))
		default:
			errs = append(errs, field.NotSupported(p.Child("source"), mp.Source, supportedSources()))
		}
		if mp.Source == SourcePrometheus {
			errs = append(errs, validatePrometheus(mp.Prometheus, p.Child("prometheus"))...)
		} else if mp.Prometheus != nil {
			errs = append(errs, field.Forbidden(p.Child("prometheus"), "only allowed when source is Prometheus"))
		}
	}
	return errs
}

// validatePrometheus requires an http(s) URL, a timeout that is not
// negative and, when an auth token is configured, a secret reference with
// namespace and name and no bearerTokenFile.
func validatePrometheus(pr *Prometheus, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case pr == nil || pr.URL == "":
		errs = append(errs, field.Required(path.Child("url"), "required when source is Prometheus"))
	default:
		if msg := httpURLProblem(pr.URL); msg != "" {
			errs = append(errs, field.Invalid(path.Child("url"), pr.URL, msg))
		}
	}
	if pr != nil && pr.Timeout != nil && pr.Timeout.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("timeout"), pr.Timeout.Duration.String(), "must not be negative"))
	}
	if pr == nil || pr.AuthToken == nil {
		return errs
	}
	if pr.BearerTokenFile != "" {
		errs = append(errs, field.Forbidden(path.Child("bearerTokenFile"), "may not be set together with authToken"))
	}
	refPath := path.Child("authToken", "secretReference")
	ref := pr.AuthToken.SecretReference
	if ref == nil {
		return append(errs, field.Required(refPath, "required when authToken is set"))
	}
	if ref.Namespace == "" {
		errs = append(errs, field.Required(refPath.Child("namespace"), ""))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(refPath.Child("name"), ""))
	}
	return errs
}

// httpURLProblem describes why raw is not an absolute http(s) URL with a
// host, or returns "".
func httpURLProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return err.Error()
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "must be an http or https URL"
	}
	if u.Host == "" {
		return "must include a host"
	}
	return ""
}

// validateProfiles checks names (non-empty, unique) and each profile.
func validateProfiles(profiles []DeschedulerProfile, reg *framework.Registry, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := make(map[string]bool, len(profiles))
	for i := range profiles {
		prof := &profiles[i]
		p := path.Index(i)
		switch {
		case prof.Name == "":
			errs = append(errs, field.Required(p.Child("name"), ""))
		case names[prof.Name]:
			errs = append(errs, field.Duplicate(p.Child("name"), prof.Name))
		}
		names[prof.Name] = true
		errs = append(errs, validatePluginConfigs(prof.PluginConfig, reg, p.Child("pluginConfig"))...)
		errs = append(errs, validatePlugins(&prof.Plugins, reg, p.Child("plugins"))...)
		errs = append(errs, validateProfileNodeSelector(prof.NodeSelector, p.Child("nodeSelector"))...)
	}
	return errs
}

// validatePluginConfigs checks names (registered, one config per plugin)
// and appends each plugin's own args validation.
func validatePluginConfigs(configs []PluginConfig, reg *framework.Registry, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(configs))
	for j, pc := range configs {
		p := path.Index(j)
		if _, ok := reg.Lookup(pc.Name); !ok {
			errs = append(errs, unknownPlugin(p.Child("name"), pc.Name, reg))
		} else if seen[pc.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), pc.Name))
		}
		seen[pc.Name] = true
		if pc.Decoded != nil {
			errs = append(errs, pc.Decoded.Validate(p.Child("args"))...)
		}
	}
	return errs
}

// validatePlugins checks every extension point's enabled and disabled lists.
func validatePlugins(pl *Plugins, reg *framework.Registry, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, eps := range extensionPoints(pl) {
		p := path.Child(eps.field)
		errs = append(errs, validateEnabled(eps, reg, p.Child("enabled"))...)
		errs = append(errs, validateDisabled(eps, reg, p.Child("disabled"))...)
	}
	return errs
}

// validateEnabled checks that each enabled plugin is registered, implements
// the point (sort and presort are only name-checked) and is listed once.
func validateEnabled(eps extensionPointSet, reg *framework.Registry, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]bool, len(eps.set.Enabled))
	for k, name := range eps.set.Enabled {
		p := path.Index(k)
		plugin, ok := reg.Lookup(name)
		switch {
		case !ok:
			errs = append(errs, unknownPlugin(p, name, reg))
		case seen[name]:
			errs = append(errs, field.Duplicate(p, name))
		case eps.effective && !plugin.Implements(eps.point):
			errs = append(errs, field.Invalid(p, name, notImplementedDetail(plugin, eps.point)))
		}
		seen[name] = true
	}
	return errs
}

// notImplementedDetail explains which points the plugin does implement.
func notImplementedDetail(plugin framework.Plugin, point framework.ExtensionPoint) string {
	points := make([]string, len(plugin.Points))
	for i, pt := range plugin.Points {
		points[i] = string(pt)
	}
	return fmt.Sprintf("plugin does not implement the %s extension point (it implements %s)",
		point, strings.Join(points, ", "))
}

// validateDisabled checks that each disabled plugin is registered, that
// DefaultEvictor is not disabled where it is always enabled, and that no
// plugin is both enabled and disabled at the point.
func validateDisabled(eps extensionPointSet, reg *framework.Registry, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	evictorPoint := eps.point == framework.Filter || eps.point == framework.PreEvictionFilter
	for k, name := range eps.set.Disabled {
		p := path.Index(k)
		switch {
		case !isRegistered(reg, name):
			errs = append(errs, unknownPlugin(p, name, reg))
		case name == DefaultEvictorName && evictorPoint:
			errs = append(errs, field.Forbidden(p, fmt.Sprintf("%s is always enabled at %s", DefaultEvictorName, eps.field)))
		case slices.Contains(eps.set.Enabled, name):
			errs = append(errs, field.Invalid(p, name, fmt.Sprintf("plugin is also enabled at %s", eps.field)))
		}
	}
	return errs
}

// isRegistered reports whether the registry knows the name.
func isRegistered(reg *framework.Registry, name string) bool {
	_, ok := reg.Lookup(name)
	return ok
}

// unknownPlugin reports a plugin name that is not registered, listing the
// registered names and, first, the closest one when it is close
// ("did you mean \"PodLifeTime\"?").
func unknownPlugin(path *field.Path, name string, reg *framework.Registry) *field.Error {
	e := field.NotSupported(path, name, reg.Names())
	if s := Suggest(name, reg.Names()); s != "" {
		e.Detail = "did you mean " + quote(s) + "? " + e.Detail
	}
	return e
}
