package api

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Allows reports whether the namespace passes the include/exclude lists.
// A nil *Namespaces allows every namespace.
func (n *Namespaces) Allows(namespace string) bool {
	if n == nil {
		return true
	}
	if len(n.Include) > 0 {
		return slices.Contains(n.Include, namespace)
	}
	return !slices.Contains(n.Exclude, namespace)
}

// ValidateNamespaces checks that include and exclude are not both set.
func ValidateNamespaces(n *Namespaces, path *field.Path) field.ErrorList {
	if n != nil && len(n.Include) > 0 && len(n.Exclude) > 0 {
		return field.ErrorList{field.Forbidden(path, "only one of include and exclude may be set")}
	}
	return nil
}

// ValidateLabelSelector checks a label selector's syntax.
func ValidateLabelSelector(sel *metav1.LabelSelector, path *field.Path) field.ErrorList {
	if sel == nil {
		return nil
	}
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, path)
}

// ValidatePriorityThreshold checks that value and name are not both set.
func ValidatePriorityThreshold(p *PriorityThreshold, path *field.Path) field.ErrorList {
	if p != nil && p.Value != nil && p.Name != "" {
		return field.ErrorList{field.Forbidden(path, "only one of value and name may be set")}
	}
	return nil
}
