package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// ValidationError is returned by Load when a policy decodes but has problems:
// unknown or duplicate fields, an unsupported apiVersion or kind, v1alpha1
// params that cannot be converted, plugin args that do not decode, and every
// rule of Validate. Errs holds all of them, each with its field path.
// Inspect it with errors.As.
type ValidationError struct {
	Errs field.ErrorList
}

// Error lists every problem on its own line after a one-line summary.
func (e *ValidationError) Error() string {
	var b strings.Builder
	plural := "s"
	if len(e.Errs) == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "invalid policy (%d problem%s):", len(e.Errs), plural)
	for _, err := range e.Errs {
		b.WriteString("\n")
		b.WriteString(errorLine(err))
	}
	return b.String()
}

// errorLine renders one problem. A value of the wrong type reads
// "path: must be a number, got string \"20%\""; an unknown field
// "path: unknown field \"x\", did you mean \"y\"?"; the rest as
// field.Error renders them.
func errorLine(err *field.Error) string {
	if err.Type == field.ErrorTypeTypeInvalid || (err.Type == field.ErrorTypeForbidden &&
		strings.HasPrefix(err.Detail, "unknown field ")) {
		return err.Field + ": " + err.Detail
	}
	return err.Error()
}

// LoadFile reads the policy file at path and loads it like Load. Every error
// names the path.
func LoadFile(path string, reg *framework.Registry) (*DeschedulerPolicy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading policy: %w", err)
	}
	p, err := Load(data, reg)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	return p, nil
}

// Load decodes a policy written in YAML or JSON, converts the legacy
// descheduler/v1alpha1 form, applies the defaults (see setDefaults), decodes
// every pluginConfig's args into the plugin's typed args (stored, defaulted,
// in PluginConfig.Decoded) and validates the result.
//
// A missing apiVersion means descheduler/v1alpha2 and a missing kind means
// DeschedulerPolicy; any other value of either is an error. Decoding is
// strict: an unknown or duplicated field anywhere, including inside plugin
// args, is an error naming the field; field names are case-sensitive.
//
// Problems found in the content are all reported together in a
// *ValidationError: unknown fields (with the closest valid name), values
// of the wrong type (with the full path and the expected type in words;
// the part holding them is not decoded further), and every rule of
// Validate. Input that cannot be parsed at all (bad YAML/JSON syntax) is
// returned as a plain wrapped error. Plugin sets are read under upstream's
// keys (presort, sort, deschedule, balance, filter, preevictionfilter);
// preEvictionFilter is moved to preevictionfilter. The returned policy
// always has apiVersion descheduler/v1alpha2.
func Load(data []byte, reg *framework.Registry) (*DeschedulerPolicy, error) {
	if reg == nil {
		return nil, errors.New("loading policy: nil plugin registry")
	}
	doc, err := toJSON(data)
	if err != nil {
		return nil, err
	}
	version, errs, err := detectVersion(doc)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, &ValidationError{Errs: errs}
	}
	var (
		p       *DeschedulerPolicy
		origins []string
	)
	if version == V1alpha1 {
		p, origins, errs, err = decodeV1alpha1(doc, reg)
	} else {
		p, errs, err = decodeV1alpha2(doc)
	}
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, &ValidationError{Errs: errs}
	}
	p.APIVersion, p.Kind = V1alpha2, PolicyKind
	setDefaults(p, reg)
	errs = append(errs, decodeArgs(p, reg)...)
	errs = append(errs, Validate(p, reg)...)
	if len(errs) > 0 {
		annotateLegacyOrigins(errs, origins)
		return nil, &ValidationError{Errs: errs}
	}
	return p, nil
}

// toJSON returns the policy as JSON. JSON input is used as is; anything else
// is parsed as YAML, where duplicate keys and a second document are errors.
func toJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("decoding policy: the policy is empty")
	}
	doc := trimmed
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		if err := oneDocument(data); err != nil {
			return nil, err
		}
		var err error
		if doc, err = yaml.YAMLToJSONStrict(data); err != nil {
			return nil, fmt.Errorf("decoding policy: %w", err)
		}
	}
	if !bytes.HasPrefix(doc, []byte("{")) {
		return nil, errors.New("decoding policy: the policy must be a mapping of fields")
	}
	return doc, nil
}

// detectVersion reads apiVersion and kind. It returns the version to decode
// (V1alpha1 or V1alpha2) or field errors for unsupported values.
func detectVersion(doc []byte) (string, field.ErrorList, error) {
	var tm metav1.TypeMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &tm); err != nil {
		return "", nil, fmt.Errorf("decoding policy: %w", err)
	}
	var errs field.ErrorList
	version := tm.APIVersion
	switch version {
	case "":
		version = V1alpha2
	case V1alpha1, V1alpha2:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), version, []string{V1alpha1, V1alpha2}))
	}
	if tm.Kind != "" && tm.Kind != PolicyKind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), tm.Kind, []string{PolicyKind}))
	}
	return version, errs, nil
}

// decodeV1alpha2 strictly decodes the v1alpha2 form and moves each
// profile's plugins.preEvictionFilter to plugins.preevictionfilter.
func decodeV1alpha2(doc []byte) (*DeschedulerPolicy, field.ErrorList, error) {
	p := &DeschedulerPolicy{}
	errs, err := decodeStrict(doc, p)
	if err != nil || typeInvalid(errs) {
		return nil, errs, err
	}
	for i := range p.Profiles {
		errs = append(errs, mergeCamelPreEvictionFilter(&p.Profiles[i].Plugins,
			field.NewPath("profiles").Index(i).Child("plugins"))...)
	}
	return p, errs, nil
}

// mergeCamelPreEvictionFilter moves the camel-case preEvictionFilter set to
// preevictionfilter; both spellings in one profile are an error.
func mergeCamelPreEvictionFilter(pl *Plugins, path *field.Path) field.ErrorList {
	camel := pl.PreEvictionFilterCamel
	if camel == nil {
		return nil
	}
	pl.PreEvictionFilterCamel = nil
	if len(pl.PreEvictionFilter.Enabled) > 0 || len(pl.PreEvictionFilter.Disabled) > 0 {
		return field.ErrorList{field.Forbidden(path.Child("preEvictionFilter"),
			"may not be set together with preevictionfilter (the same extension point; use one spelling)")}
	}
	pl.PreEvictionFilter = *camel
	return nil
}

// typeInvalid reports whether errs hold a value of the wrong type, after
// which the document is not decoded further.
func typeInvalid(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Type == field.ErrorTypeTypeInvalid {
			return true
		}
	}
	return false
}

// decodeV1alpha1 strictly decodes the legacy form and converts it. origins
// names the strategy each converted profile came from, by profile index.
func decodeV1alpha1(doc []byte, reg *framework.Registry) (*DeschedulerPolicy, []string, field.ErrorList, error) {
	legacy := &V1alpha1Policy{}
	errs, err := decodeStrict(doc, legacy)
	if err != nil || typeInvalid(errs) {
		return nil, nil, errs, err
	}
	p, origins, convErrs := convertV1alpha1(legacy, reg)
	return p, origins, append(errs, convErrs...), nil
}

// decodeStrict decodes doc into v (a pointer to a struct). Values of the
// wrong type are reported first, each at its full path with the expected
// type in words (checkValue), and then nothing is decoded. Otherwise
// unknown fields (with the closest valid name) and duplicate fields become
// field errors at their own path and decoding goes on; anything else is
// fatal.
func decodeStrict(doc []byte, v any) (field.ErrorList, error) {
	errs := typeErrors(doc, reflect.TypeOf(v).Elem(), nil)
	if typeInvalid(errs) {
		return errs, nil
	}
	strict, err := kjson.UnmarshalStrict(doc, v)
	if err != nil {
		return nil, fmt.Errorf("decoding policy: %w", err)
	}
	for _, se := range strict {
		if fe := strictFieldError(se, nil); fe != nil {
			errs = append(errs, fe)
		}
	}
	return errs, nil
}

// strictFieldError turns one strict-decoding error about a duplicated
// field into a field error at that field below base ("a.b: Forbidden:
// duplicate field"). Unknown fields give nil: checkValue reports them, with a
// suggestion.
func strictFieldError(err error, base *field.Path) *field.Error {
	var fe kjson.FieldError
	if !errors.As(err, &fe) {
		return field.Forbidden(base, err.Error())
	}
	if strings.HasPrefix(err.Error(), "unknown field") {
		return nil
	}
	name := fe.FieldPath()
	if base != nil {
		name = base.String() + "." + name
	}
	return field.Forbidden(field.NewPath(name), "duplicate field")
}

// decodeArgs decodes every pluginConfig of a registered plugin into
// plugin.NewArgs(), applies Args.Default and stores the result in Decoded.
// Unknown plugins are left to Validate. Problems are reported at
// profiles[i].pluginConfig[j].args; decoding goes on to report them all.
func decodeArgs(p *DeschedulerPolicy, reg *framework.Registry) field.ErrorList {
	var errs field.ErrorList
	for i := range p.Profiles {
		configs := p.Profiles[i].PluginConfig
		for j := range configs {
			plugin, ok := reg.Lookup(configs[j].Name)
			if !ok {
				continue
			}
			path := field.NewPath("profiles").Index(i).Child("pluginConfig").Index(j).Child("args")
			args, argErrs := decodePluginArgs(plugin, configs[j].Args, path)
			configs[j].Decoded = args
			errs = append(errs, argErrs...)
		}
	}
	return errs
}

// decodePluginArgs strictly decodes raw into the plugin's args and defaults
// them. Empty or null args give the plugin's defaults. Like upstream's
// typed args, raw may carry apiVersion (descheduler/v1alpha2) and kind (the
// plugin name followed by "Args", e.g. DefaultEvictorArgs); they are checked
// and otherwise ignored. The args are nil when raw does not decode (a
// value of the wrong type).
func decodePluginArgs(plugin framework.Plugin, raw json.RawMessage, path *field.Path) (framework.Args, field.ErrorList) {
	args := plugin.NewArgs()
	var errs field.ErrorList
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		errs = typeErrors(trimmed, reflect.TypeOf(args).Elem(), path, "apiVersion", "kind")
		errs = append(errs, argsTypeMeta(plugin.Name, trimmed, path)...)
		if typeInvalid(errs) {
			return nil, errs
		}
		strict, err := kjson.UnmarshalStrict(trimmed, args)
		if err != nil {
			return nil, append(errs, field.Invalid(path, field.OmitValueType{}, err.Error()))
		}
		for _, se := range strict {
			if fe := strictFieldError(se, path); fe != nil {
				errs = append(errs, fe)
			}
		}
	}
	args.Default()
	return args, errs
}

// argsTypeMeta checks the optional apiVersion and kind of typed args.
func argsTypeMeta(plugin string, raw []byte, path *field.Path) field.ErrorList {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil // not a mapping: typeErrors has reported it
	}
	want := map[string]string{"apiVersion": V1alpha2, "kind": plugin + "Args"}
	var errs field.ErrorList
	for _, k := range []string{"apiVersion", "kind"} {
		v, set := obj[k]
		if !set || v == nil {
			continue
		}
		s, ok := v.(string)
		switch {
		case !ok:
			errs = append(errs, mismatch(path.Child(k), "must be a string", jsonNumber(v))...)
		case s != want[k]:
			errs = append(errs, field.NotSupported(path.Child(k), s, []string{want[k]}))
		}
	}
	return errs
}

// jsonNumber turns a float64 from encoding/json into a json.Number for
// describe.
func jsonNumber(v any) any {
	if f, ok := v.(float64); ok {
		return json.Number(strconv.FormatFloat(f, 'f', -1, 64))
	}
	return v
}

// annotateLegacyOrigins appends to each error below profiles[i] the v1alpha1
// strategy that profile was converted from, so users of the legacy form can
// find the source of the problem.
func annotateLegacyOrigins(errs field.ErrorList, origins []string) {
	if len(origins) == 0 {
		return
	}
	for _, e := range errs {
		i, ok := profileIndex(e.Field)
		if !ok || i >= len(origins) {
			continue
		}
		note := fmt.Sprintf("(converted from v1alpha1 strategies[%s])", origins[i])
		if e.Detail == "" {
			e.Detail = note
		} else {
			e.Detail += " " + note
		}
	}
}

// profileIndex parses i from a field path starting with "profiles[i]".
func profileIndex(path string) (int, bool) {
	rest, ok := strings.CutPrefix(path, "profiles[")
	if !ok {
		return 0, false
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return 0, false
	}
	i, err := strconv.Atoi(rest[:end])
	return i, err == nil
}
