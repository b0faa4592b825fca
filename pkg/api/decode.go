package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
		b.WriteString(err.Error())
	}
	return b.String()
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
// *ValidationError; input that cannot be parsed at all (bad YAML/JSON
// syntax, a value of the wrong type) is returned as a plain wrapped error.
// The returned policy always has apiVersion descheduler/v1alpha2.
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
// is parsed as YAML, where duplicate keys are an error.
func toJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("decoding policy: the policy is empty")
	}
	doc := trimmed
	if trimmed[0] != '{' || !json.Valid(trimmed) {
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

// decodeV1alpha2 strictly decodes the v1alpha2 form.
func decodeV1alpha2(doc []byte) (*DeschedulerPolicy, field.ErrorList, error) {
	p := &DeschedulerPolicy{}
	errs, err := decodeStrict(doc, p)
	if err != nil {
		return nil, nil, err
	}
	return p, errs, nil
}

// decodeV1alpha1 strictly decodes the legacy form and converts it. origins
// names the strategy each converted profile came from, by profile index.
func decodeV1alpha1(doc []byte, reg *framework.Registry) (*DeschedulerPolicy, []string, field.ErrorList, error) {
	legacy := &V1alpha1Policy{}
	errs, err := decodeStrict(doc, legacy)
	if err != nil {
		return nil, nil, nil, err
	}
	p, origins, convErrs := convertV1alpha1(legacy, reg)
	return p, origins, append(errs, convErrs...), nil
}

// decodeStrict decodes doc into v. Unknown and duplicate fields become field
// errors at their own path (decoding goes on); anything else is fatal.
func decodeStrict(doc []byte, v any) (field.ErrorList, error) {
	strict, err := kjson.UnmarshalStrict(doc, v)
	if err != nil {
		return nil, fmt.Errorf("decoding policy: %w", err)
	}
	errs := make(field.ErrorList, 0, len(strict))
	for _, se := range strict {
		errs = append(errs, strictFieldError(se))
	}
	return errs, nil
}

// strictFieldError turns one strict-decoding error ("unknown field \"a.b\"")
// into a field error at the offending field ("a.b: Forbidden: unknown field").
func strictFieldError(err error) *field.Error {
	var fe kjson.FieldError
	if !errors.As(err, &fe) {
		return field.Forbidden(nil, err.Error())
	}
	detail := err.Error()
	if i := strings.IndexByte(detail, '"'); i > 0 {
		detail = strings.TrimSpace(detail[:i])
	}
	return field.Forbidden(field.NewPath(fe.FieldPath()), detail)
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
// them. Empty or null args give the plugin's defaults. The args are nil only
// when raw does not decode at all (e.g. a value of the wrong type).
func decodePluginArgs(plugin framework.Plugin, raw json.RawMessage, path *field.Path) (framework.Args, field.ErrorList) {
	args := plugin.NewArgs()
	var errs field.ErrorList
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		strict, err := kjson.UnmarshalStrict(trimmed, args)
		if err != nil {
			return nil, field.ErrorList{field.Invalid(path, field.OmitValueType{}, err.Error())}
		}
		for _, se := range strict {
			errs = append(errs, field.Forbidden(path, se.Error()))
		}
	}
	args.Default()
	return args, errs
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
