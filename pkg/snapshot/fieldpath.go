package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// locate finds the field path (e.g. spec.containers[0].resources.requests.cpu)
// of the value that makes raw fail to decode with cause. Decoders report
// errors of custom unmarshalers (quantities, times) without a path and type
// errors without list indices, so locate narrows the object down: it keeps
// one field or list element at a time and descends into the one that alone
// still reproduces the error, unless an empty object or list in place of
// the value fails the same way (then the value's type is the problem). It
// returns "" when no single value reproduces the error. It is only called on
// the error path.
func locate(raw []byte, gvk schema.GroupVersionKind, cause error) string {
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		return ""
	}
	want := cause.Error()
	fails := func(obj map[string]any) bool {
		data, err := json.Marshal(obj)
		if err != nil {
			return false
		}
		err = decodeInto(data, newObject(gvk))
		return err != nil && err.Error() == want
	}
	top := func(x any) map[string]any {
		m := map[string]any{}
		for k, v := range x.(map[string]any) {
			m[k] = v
		}
		for _, k := range []string{"apiVersion", "kind"} {
			if v, ok := root[k]; ok {
				m[k] = v
			}
		}
		return m
	}
	return narrow(root, top, "", fails)
}

// narrow descends into v, whose enclosing object is rebuilt by wrap, while a
// single field or element still fails; it returns the path reached.
func narrow(v any, wrap func(any) map[string]any, path string, fails func(map[string]any) bool) string {
	switch t := v.(type) {
	case map[string]any:
		if path != "" && fails(wrap(map[string]any{})) {
			return path // the value itself is wrong (e.g. an object where a string belongs)
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			inner := func(x any) map[string]any { return wrap(map[string]any{k: x}) }
			if fails(inner(t[k])) {
				return narrow(t[k], inner, joinPath(path, k), fails)
			}
		}
	case []any:
		if fails(wrap([]any{})) {
			return path
		}
		for i, e := range t {
			inner := func(x any) map[string]any { return wrap([]any{x}) }
			if fails(inner(e)) {
				return narrow(e, inner, fmt.Sprintf("%s[%d]", path, i), fails)
			}
		}
	}
	return path
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
