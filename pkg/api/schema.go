package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// schemaField is one JSON field of a struct type.
type schemaField struct {
	name string
	typ  reflect.Type
}

// schemaFields returns the JSON fields of struct type t, sorted by name,
// flattening embedded structs without a JSON name as encoding/json does
// (metav1.TypeMeta's ",inline" included). Fields tagged "-" are left out.
func schemaFields(t reflect.Type) []schemaField {
	var out []schemaField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, schemaFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, schemaField{name: name, typ: ft})
	}
	slices.SortFunc(out, func(a, b schemaField) int { return strings.Compare(a.name, b.name) })
	return out
}

// lookupField returns the type of the JSON field name of struct type t
// (case-sensitive, as decoding is).
func lookupField(t reflect.Type, name string) (reflect.Type, bool) {
	for _, f := range schemaFields(t) {
		if f.name == name {
			return f.typ, true
		}
	}
	return nil, false
}

// fieldNames returns the JSON field names of struct type t, sorted.
func fieldNames(t reflect.Type) []string {
	fields := schemaFields(t)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// unknownFieldDetail reads `unknown field "name"`, followed by
// `, did you mean "x"?` when a valid name is close.
func unknownFieldDetail(name string, valid []string) string {
	detail := "unknown field " + quote(name)
	if s := Suggest(name, valid); s != "" {
		detail += ", did you mean " + quote(s) + "?"
	}
	return detail
}

// Suggest returns the candidate closest to name, or "" when none is close:
// a case-insensitive match wins; otherwise the smallest edit distance
// ignoring case, at most 2, or a third of the longer name for long names;
// ties go to the smaller distance with case (so "preevictionfiltre"
// suggests upstream's "preevictionfilter", not "preEvictionFilter").
func Suggest(name string, candidates []string) string {
	best, bestFold, bestExact := "", -1, 0
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return c
		}
		fold := editDistance(strings.ToLower(name), strings.ToLower(c))
		if fold > max(2, max(len(name), len(c))/3) {
			continue
		}
		exact := editDistance(name, c)
		if bestFold < 0 || fold < bestFold || (fold == bestFold && exact < bestExact) {
			best, bestFold, bestExact = c, fold, exact
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quote renders s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
