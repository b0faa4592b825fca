package evictor

import (
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
)

// pdbIndex holds the PodDisruptionBudgets of one namespace so that finding
// those selecting a pod does not test every selector: a PDB whose
// selector requires a label value (its first Equals or In requirement)
// is filed under that label key and value(s), and only pods carrying one
// of those values can match it; the others are tested for every pod.
type pdbIndex struct {
	// everyPod are the PDBs without such a requirement.
	everyPod []int
	// keys are the label keys PDBs are filed under; byLabel[key][value]
	// lists the PDBs requiring that value.
	keys    []string
	byLabel map[string]map[string][]int
}

// add files PDB i with selector sel. A selector that selects nothing is
// not filed.
func (x *pdbIndex) add(i int, sel labels.Selector) {
	reqs, selectable := sel.Requirements()
	if !selectable {
		return
	}
	for _, r := range reqs {
		switch r.Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			x.file(i, r.Key(), r.ValuesUnsorted())
			return
		}
	}
	x.everyPod = append(x.everyPod, i)
}

// file lists PDB i under key for each distinct value.
func (x *pdbIndex) file(i int, key string, values []string) {
	if x.byLabel == nil {
		x.byLabel = map[string]map[string][]int{}
	}
	byValue := x.byLabel[key]
	if byValue == nil {
		byValue = map[string][]int{}
		x.byLabel[key] = byValue
		x.keys = append(x.keys, key)
	}
	for _, v := range values {
		if l := byValue[v]; len(l) == 0 || l[len(l)-1] != i {
			byValue[v] = append(l, i)
		}
	}
}

// any reports whether f returns true for some PDB that may select a pod
// with labels set, stopping at the first; PDBs are visited in no
// particular order, each at most once.
func (x *pdbIndex) any(set labels.Set, f func(i int) bool) bool {
	if x == nil {
		return false
	}
	if slices.ContainsFunc(x.everyPod, f) {
		return true
	}
	for _, key := range x.keys {
		if v, ok := set[key]; ok && slices.ContainsFunc(x.byLabel[key][v], f) {
			return true
		}
	}
	return false
}
