package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The types checkTypes treats as leaves with their own JSON form.
var (
	durationType      = reflect.TypeFor[metav1.Duration]()
	quantityType      = reflect.TypeFor[resource.Quantity]()
	timeType          = reflect.TypeFor[metav1.Time]()
	rawType           = reflect.TypeFor[json.RawMessage]()
	selectorType      = reflect.TypeFor[ProfileNodeSelector]()
	labelSelectorType = reflect.TypeFor[metav1.LabelSelector]()
	unmarshalType     = reflect.TypeFor[json.Unmarshaler]()
)

// typeErrors parses doc (JSON) and walks it against the Go type t, as
// checkValue does. A doc that does not parse gives no errors (the decoder
// reports it).
func typeErrors(doc []byte, t reflect.Type, path *field.Path, skipTop ...string) field.ErrorList {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	if obj, ok := v.(map[string]any); ok && len(skipTop) > 0 {
		for _, k := range skipTop {
			delete(obj, k)
		}
	}
	return checkValue(v, t, path)
}

// checkValue reports, with full field paths (list indices, map keys in
// brackets), every value whose JSON type does not fit the Go type t and
// every unknown field of a struct (with the closest valid name). The
// expected type is named in words ("must be a number"), never as a Go
// type. null is accepted everywhere (it decodes to the zero value).
func checkValue(v any, t reflect.Type, path *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case durationType:
		return checkDuration(v, path)
	case quantityType:
		return checkQuantity(v, path)
	case timeType:
		return checkTime(v, path)
	case rawType:
		return nil
	case selectorType:
		return checkProfileNodeSelector(v, path)
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(v, t, path)
	case reflect.Map:
		return checkMap(v, t, path)
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			return mismatch(path, "must be a list", v)
		}
		var errs field.ErrorList
		for i, item := range list {
			errs = append(errs, checkValue(item, t.Elem(), path.Index(i))...)
		}
		return errs
	default:
		return checkScalar(v, t, path)
	}
}

func checkStruct(v any, t reflect.Type, path *field.Path) field.ErrorList {
	obj, ok := v.(map[string]any)
	if !ok {
		return mismatch(path, "must be a mapping of fields", v)
	}
	var errs field.ErrorList
	for _, k := range sortedKeys(obj) {
		ft, known := lookupField(t, k)
		if !known {
			errs = append(errs, field.Forbidden(path.Child(k), unknownFieldDetail(k, fieldNames(t))))
			continue
		}
		errs = append(errs, checkValue(obj[k], ft, path.Child(k))...)
	}
	return errs
}

func checkMap(v any, t reflect.Type, path *field.Path) field.ErrorList {
	obj, ok := v.(map[string]any)
	if !ok {
		return mismatch(path, "must be a mapping", v)
	}
	var errs field.ErrorList
	for _, k := range sortedKeys(obj) {
		errs = append(errs, checkValue(obj[k], t.Elem(), path.Key(k))...)
	}
	return errs
}

// checkScalar checks strings, booleans and numbers, integers for their
// range as well.
func checkScalar(v any, t reflect.Type, path *field.Path) field.ErrorList {
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return mismatch(path, "must be a string", v)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return mismatch(path, "must be true or false", v)
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(json.Number); !ok {
			return mismatch(path, "must be a number", v)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(path, "must be a whole number", v)
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); errors.Is(err, strconv.ErrRange) {
			return mismatch(path, fmt.Sprintf("must be a whole number of at most %d bits", t.Bits()), v)
		} else if err != nil {
			return mismatch(path, "must be a whole number", v)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch(path, "must be a whole number that is not negative", v)
		}
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
			return mismatch(path, "must be a whole number that is not negative", v)
		}
	}
	return nil
}

func checkDuration(v any, path *field.Path) field.ErrorList {
	s, ok := v.(string)
	if !ok {
		return mismatch(path, `must be a duration such as "30s" or "5m"`, v)
	}
	if _, err := time.ParseDuration(s); err != nil {
		return mismatch(path, `must be a duration such as "30s" or "5m"`, v)
	}
	return nil
}

func checkQuantity(v any, path *field.Path) field.ErrorList {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	default:
		return mismatch(path, `must be a quantity such as "500m" or "2Gi"`, v)
	}
	if _, err := resource.ParseQuantity(s); err != nil {
		return mismatch(path, `must be a quantity such as "500m" or "2Gi"`, v)
	}
	return nil
}

func checkTime(v any, path *field.Path) field.ErrorList {
	s, ok := v.(string)
	if !ok {
		return mismatch(path, `must be a time such as "2026-01-01T12:00:00Z"`, v)
	}
	if _, err := time.Parse(time.RFC3339, s); err != nil {
		return mismatch(path, `must be a time such as "2026-01-01T12:00:00Z"`, v)
	}
	return nil
}

// mismatch is a TypeInvalid error whose detail reads "<want>, got <what>",
// e.g. `must be a number, got string "20%"`.
func mismatch(path *field.Path, want string, got any) field.ErrorList {
	return field.ErrorList{{Type: field.ErrorTypeTypeInvalid, Field: path.String(), BadValue: field.OmitValueType{},
		Detail: want + ", got " + describe(got)}}
}

// describe names a parsed JSON value's type in words, with the value for
// scalars.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + quote(x)
	case json.Number:
		return "number " + string(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	default:
		return "null"
	}
}

func sortedKeys(obj map[string]any) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
