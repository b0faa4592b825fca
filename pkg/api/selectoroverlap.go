package api

import (
	"strconv"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks the selector in either form (see ProfileNodeSelector):
// the string with labels.Parse, the object as a label selector.
func (s *ProfileNodeSelector) Validate(path *field.Path) field.ErrorList {
	return validateProfileNodeSelector(s, path)
}

// Empty reports whether the selector has no requirement (it would select
// every node): an empty string or an object without matchLabels and
// matchExpressions.
func (s *ProfileNodeSelector) Empty() bool {
	if s == nil {
		return true
	}
	if s.Object != nil {
		return len(s.Object.MatchLabels) == 0 && len(s.Object.MatchExpressions) == 0
	}
	sel, err := labels.Parse(s.Expression)
	return err == nil && sel.Empty()
}

// SelectorsProvablyOverlap reports whether some node must be expected in
// both selections: a node labelled with nothing but the keys one of the
// selectors names would match both. Two selectors on the same key with a
// common value ("pool=batch" and "pool in (batch,gpu)"), a selector and a
// narrowing of it ("pool=batch" and "pool=batch,spot=true"), and two
// selectors that both accept a missing key ("pool!=a" and "pool!=b")
// provably overlap; selectors on different keys ("pool=batch" and
// "spot=true") do not, since only the nodes' labels tell whether one node
// carries both.
func SelectorsProvablyOverlap(a, b labels.Selector) bool {
	ra, _ := a.Requirements()
	rb, _ := b.Requirements()
	all := append(append([]labels.Requirement{}, ra...), rb...)
	return witness(all, keysOf(ra)) || witness(all, keysOf(rb))
}

func keysOf(rs []labels.Requirement) map[string]bool {
	out := make(map[string]bool, len(rs))
	for _, r := range rs {
		out[r.Key()] = true
	}
	return out
}

// witness reports whether a label set on the given keys alone (every
// other key absent) satisfies all requirements. Keys are independent, so
// each key needs one value (or its absence) satisfying its own
// requirements; a requirement on a key outside keys sees the key absent.
func witness(all []labels.Requirement, keys map[string]bool) bool {
	byKey := map[string][]labels.Requirement{}
	for _, r := range all {
		byKey[r.Key()] = append(byKey[r.Key()], r)
	}
	for key, rs := range byKey {
		if !keys[key] {
			if !matchesAll(rs, labels.Set{}) {
				return false
			}
			continue
		}
		found := false
		for _, set := range candidateValues(key, rs) {
			if matchesAll(rs, set) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func matchesAll(rs []labels.Requirement, set labels.Set) bool {
	for _, r := range rs {
		if !r.Matches(set) {
			return false
		}
	}
	return true
}

// candidateValues are the label sets worth trying for key: the key
// absent, every value a requirement names, a value no requirement names,
// and integers just inside every Gt/Lt bound (as many as there are named
// values, so that NotIn cannot exclude them all).
func candidateValues(key string, rs []labels.Requirement) []labels.Set {
	out := []labels.Set{{}, {key: "\x00unnamed"}}
	named := 0
	for _, r := range rs {
		named += r.Values().Len()
	}
	for _, r := range rs {
		for _, v := range r.Values().UnsortedList() {
			out = append(out, labels.Set{key: v})
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			for i := int64(1); i <= int64(named)+1; i++ {
				switch r.Operator() {
				case selection.GreaterThan:
					out = append(out, labels.Set{key: strconv.FormatInt(n+i, 10)})
				case selection.LessThan:
					out = append(out, labels.Set{key: strconv.FormatInt(n-i, 10)})
				}
			}
		}
	}
	return out
}
