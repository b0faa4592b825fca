package main

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/usage-descheduler/descheduler/hack/docgen/markdown"
	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/strategies"
)

// policyRow is one field of the policy reference.
type policyRow struct {
	path, typ, def, allowed, doc string
}

// leafTypes are types documented as one value, not by their fields.
var leafTypes = map[reflect.Type]string{
	reflect.TypeOf(metav1.Duration{}):         "duration",
	reflect.TypeOf(resource.Quantity{}):       "quantity",
	reflect.TypeOf(metav1.LabelSelector{}):    "label selector",
	reflect.TypeOf(json.RawMessage{}):         "object",
	reflect.TypeOf(intstr.IntOrString{}):      "integer or percentage",
	reflect.TypeOf(metav1.Time{}):             "time",
	reflect.TypeOf(api.ProfileNodeSelector{}): "label selector string or object",
}

// typeMetaDocs document the embedded metav1.TypeMeta fields, whose
// comments live outside this module.
var typeMetaDocs = map[string]string{
	"apiVersion": "descheduler/v1alpha2, or descheduler/v1alpha1 for a legacy policy (converted on load).",
	"kind":       "DeschedulerPolicy.",
}

// defaulter is implemented by args and nested types with defaults.
type defaulter interface{ Default() }

// policyPage documents the policy file: the top-level fields, then each
// plugin's args with the defaults its Default method fills in.
func policyPage(root string) (string, error) {
	idx := newDocIndex(root)
	reg, err := strategies.NewRegistry()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(header("Policy fields", "the API types, their doc comments and their Default methods (pkg/api, pkg/evictor, strategies, collectors)"))
	b.WriteString("Every field of a policy file (`apiVersion: descheduler/v1alpha2`, `kind: DeschedulerPolicy`). " +
		"A path joins nested fields with `.`; `[]` marks the items of a list. *Default* is what the descheduler fills in " +
		"when the field is absent (empty: nothing is filled in, and the description says what absence means). " +
		"*Allowed values* lists the values of an enumerated field. Plugins: ")
	names := reg.Names()
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%s](#%s)", n, markdown.Anchor(n))
	}
	b.WriteString(".\n\n## DeschedulerPolicy\n\n")
	rows, err := structRows(idx, reflect.TypeOf(api.DeschedulerPolicy{}), "", reflect.Value{})
	if err != nil {
		return "", err
	}
	writePolicyTable(&b, rows)
	for _, n := range names {
		p, _ := reg.Lookup(n)
		points := make([]string, len(p.Points))
		for i, pt := range p.Points {
			points[i] = string(pt)
		}
		args := p.NewArgs()
		args.Default()
		fmt.Fprintf(&b, "\n## %s\n\nExtension points: %s. Configured under `profiles[].pluginConfig[]` with `name: %s`; "+
			"the fields below go under its `args`.\n\n", n, strings.Join(points, ", "), n)
		v := reflect.ValueOf(args).Elem()
		rows, err := structRows(idx, v.Type(), "", v)
		if err != nil {
			return "", err
		}
		if len(rows) == 0 {
			b.WriteString("No args.\n")
			continue
		}
		writePolicyTable(&b, rows)
	}
	return b.String(), nil
}

func writePolicyTable(b *strings.Builder, rows []policyRow) {
	b.WriteString("| Field | Type | Default | Allowed values | Description |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", code(r.path), r.typ, code(cell(r.def)), r.allowed, cell(r.doc))
	}
}

// structRows lists the JSON fields of struct type t under prefix, in
// source order, and the fields of nested structs of this module after
// each. val, when valid, is a defaulted value of t.
func structRows(idx *docIndex, t reflect.Type, prefix string, val reflect.Value) ([]policyRow, error) {
	var rows []policyRow
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "-" {
			continue
		}
		var fv reflect.Value
		if val.IsValid() {
			fv = val.Field(i)
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft, fv = ft.Elem(), reflect.Value{}
			}
			if ft == reflect.TypeOf(metav1.TypeMeta{}) {
				for _, n := range []string{"apiVersion", "kind"} {
					rows = append(rows, policyRow{path: prefix + n, typ: "string", doc: typeMetaDocs[n]})
				}
				continue
			}
			inner, err := structRows(idx, ft, prefix, fv)
			if err != nil {
				return nil, err
			}
			rows = append(rows, inner...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		row, err := fieldRow(idx, t, f, prefix+name, fv)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		nested, err := nestedRows(idx, f.Type, prefix+name, fv)
		if err != nil {
			return nil, err
		}
		rows = append(rows, nested...)
	}
	return rows, nil
}

// fieldRow documents one field of struct type owner.
func fieldRow(idx *docIndex, owner reflect.Type, f reflect.StructField, path string, fv reflect.Value) (policyRow, error) {
	row := policyRow{path: path, typ: typeName(f.Type)}
	if inModule(owner.PkgPath()) {
		d, err := idx.pkg(owner.PkgPath())
		if err != nil {
			return row, err
		}
		row.doc = dropGoReferences(siblingNames(jsonNamed(d.fields[owner.Name()+"."+f.Name], f.Name, path), owner))
	}
	base := f.Type
	for base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if base.Kind() == reflect.String && base.Name() != "" && inModule(base.PkgPath()) {
		d, err := idx.pkg(base.PkgPath())
		if err != nil {
			return row, err
		}
		vals := make([]string, len(d.consts[base.Name()]))
		for i, c := range d.consts[base.Name()] {
			vals[i] = code(c)
			if c == "" {
				vals[i] = `""`
			}
		}
		row.allowed = strings.Join(vals, ", ")
	}
	def, err := defaultText(fv, base)
	row.def = def
	return row, err
}

// defaultText renders a defaulted field value; structs of this module are
// left to their nested rows.
func defaultText(fv reflect.Value, base reflect.Type) (string, error) {
	if !fv.IsValid() || fv.IsZero() {
		return "", nil
	}
	if _, leaf := leafTypes[base]; !leaf && base.Kind() == reflect.Struct && inModule(base.PkgPath()) {
		return "", nil
	}
	data, err := json.Marshal(fv.Interface())
	if err != nil {
		return "", fmt.Errorf("rendering the default %v: %w", fv, err)
	}
	s := string(data)
	if unq, err := unquote(s); err == nil {
		s = unq
	}
	return s, nil
}

// unquote turns a JSON string into its text.
func unquote(s string) (string, error) {
	var out string
	err := json.Unmarshal([]byte(s), &out)
	return out, err
}

// nestedRows documents the fields of a nested struct type of this module
// (directly, behind a pointer or as list items). Their defaults come from
// the parent's defaulted value when it has one, else from the nested
// type's own Default method (the defaults that apply once the object is
// given).
func nestedRows(idx *docIndex, t reflect.Type, path string, fv reflect.Value) ([]policyRow, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		if fv.IsValid() {
			if fv.IsNil() {
				fv = reflect.Value{}
			} else {
				fv = fv.Elem()
			}
		}
	}
	if t.Kind() == reflect.Slice && t != reflect.TypeOf(json.RawMessage{}) {
		return nestedRows(idx, t.Elem(), path+"[]", reflect.Value{})
	}
	if _, leaf := leafTypes[t]; leaf || t.Kind() != reflect.Struct || !inModule(t.PkgPath()) {
		return nil, nil
	}
	if !fv.IsValid() {
		p := reflect.New(t)
		if d, ok := p.Interface().(defaulter); ok {
			d.Default()
			fv = p.Elem()
		}
	}
	return structRows(idx, t, path+".", fv)
}

// typeName names a field's type as a policy author writes it.
func typeName(t reflect.Type) string {
	if n, ok := leafTypes[t]; ok {
		return n
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeName(t.Elem())
	case reflect.Slice:
		return "list of " + typeName(t.Elem())
	case reflect.Map:
		return "map of " + typeName(t.Key()) + " to " + typeName(t.Elem())
	case reflect.Struct:
		return "object"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.Kind().String()
}

// jsonNamed replaces the Go field name that opens a doc comment ("MinPodAge
// protects ...") with the field's name in the policy file.
func jsonNamed(doc, goName, path string) string {
	rest, ok := strings.CutPrefix(doc, goName)
	if !ok || rest == "" || !strings.ContainsAny(rest[:1], " (:") {
		return doc
	}
	name := path[strings.LastIndex(path, ".")+1:]
	return code(strings.TrimSuffix(name, "[]")) + rest
}

// siblingNames replaces the Go names of owner's other fields in a doc
// comment ("with IncludingInitContainers") by their names in the policy
// file, so the page speaks the policy's language.
func siblingNames(doc string, owner reflect.Type) string {
	for i := range owner.NumField() {
		f := owner.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" || name == f.Name {
			continue
		}
		doc = replaceWord(doc, f.Name, code(name))
	}
	return doc
}

// replaceWord replaces whole-word occurrences of word in s.
func replaceWord(s, word, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, word)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(word)
		before, after := i == 0 || !isWordByte(s[i-1]), end == len(s) || !isWordByte(s[end])
		b.WriteString(s[:i])
		if before && after {
			b.WriteString(with)
		} else {
			b.WriteString(word)
		}
		s = s[end:]
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '`' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// goReference is a parenthesis that only points a Go reader at a Go name,
// "(see nodeutilization.Hysteresis)" or "(see Protections)".
var goReference = regexp.MustCompile(`\s*\(see [A-Za-z]+(\.[A-Z][A-Za-z]*)?\)`)

// goReferenceInText is "; see pkg.Name for every field and default".
var goReferenceInText = regexp.MustCompile(`;?\s*see [a-z]+\.[A-Z][A-Za-z]* for [^.]*`)

// dropGoReferences removes the pointers to Go names from a doc comment:
// the page's reader has the policy's names, not the code's.
func dropGoReferences(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	doc = goReference.ReplaceAllString(doc, "")
	return goReferenceInText.ReplaceAllString(doc, "")
}
