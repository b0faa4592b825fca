package api

import (
	"bytes"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ProfileNodeSelector selects the nodes a profile works on. It is written
// either as a label selector string in the syntax of the policy's
// nodeSelector ("pool=batch,zone in (a,b)") or as an object with
// matchLabels and matchExpressions, as in a Deployment's selector.
type ProfileNodeSelector struct {
	// Expression is the string form; empty in the object form.
	Expression string
	// Object is the object form; nil in the string form.
	Object *metav1.LabelSelector
}

// UnmarshalJSON reads either form. Unknown fields of the object form are
// reported by the policy's type check (with the closest valid name), so
// they are ignored here.
func (s *ProfileNodeSelector) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case len(data) > 0 && data[0] == '"':
		*s = ProfileNodeSelector{}
		return json.Unmarshal(data, &s.Expression)
	case len(data) > 0 && data[0] == '{':
		sel := &metav1.LabelSelector{}
		if err := json.Unmarshal(data, sel); err != nil {
			return fmt.Errorf("nodeSelector: %w", err)
		}
		*s = ProfileNodeSelector{Object: sel}
		return nil
	}
	return fmt.Errorf("nodeSelector must be a label selector string or an object with matchLabels and matchExpressions")
}

// MarshalJSON writes the form it was read in.
func (s ProfileNodeSelector) MarshalJSON() ([]byte, error) {
	if s.Object != nil {
		return json.Marshal(s.Object)
	}
	return json.Marshal(s.Expression)
}

// Selector returns the label selector.
func (s *ProfileNodeSelector) Selector() (labels.Selector, error) {
	if s.Object != nil {
		return metav1.LabelSelectorAsSelector(s.Object)
	}
	return labels.Parse(s.Expression)
}

// String is the selector in the string syntax (labels.Selector's form for
// the object form).
func (s *ProfileNodeSelector) String() string {
	if s.Object == nil {
		return s.Expression
	}
	sel, err := s.Selector()
	if err != nil {
		return metav1.FormatLabelSelector(s.Object)
	}
	return sel.String()
}

// validateProfileNodeSelector checks either form: the string with
// labels.Parse, the object as a label selector (operators, values, keys).
func validateProfileNodeSelector(s *ProfileNodeSelector, path *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	if s.Object != nil {
		errs := ValidateLabelSelector(s.Object, path)
		if len(errs) == 0 {
			if _, err := s.Selector(); err != nil {
				errs = append(errs, field.Invalid(path, metav1.FormatLabelSelector(s.Object), err.Error()))
			}
		}
		return errs
	}
	return validateNodeSelector(&s.Expression, path)
}

// checkProfileNodeSelector is the type check of a ProfileNodeSelector's
// JSON value: a string, or an object checked as a metav1.LabelSelector.
func checkProfileNodeSelector(v any, path *field.Path) field.ErrorList {
	switch v.(type) {
	case string:
		return nil
	case map[string]any:
		return checkStruct(v, labelSelectorType, path)
	}
	return mismatch(path, "must be a label selector string or an object with matchLabels and matchExpressions", v)
}
