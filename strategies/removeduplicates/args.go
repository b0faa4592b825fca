package removeduplicates

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Args are the arguments of RemoveDuplicates.
type Args struct {
	// Namespaces includes or excludes namespaces (one of the two). Pods in
	// other namespaces are neither counted nor evicted.
	Namespaces *api.Namespaces `json:"namespaces,omitempty"`
	// ExcludeOwnerKinds lists owner reference kinds (e.g. "ReplicaSet"); a
	// pod with an owner reference of one of these kinds is never evicted.
	// List ReplicaSet to protect Deployment pods.
	ExcludeOwnerKinds []string `json:"excludeOwnerKinds,omitempty"`
}

var _ framework.Args = (*Args)(nil)

// Default leaves every field as written: no namespace filter and no
// excluded owner kind.
func (a *Args) Default() {}

// Validate reports every problem with its field path: include and exclude
// namespaces both set, and empty excludeOwnerKinds entries (a repeated
// entry is accepted, as upstream).
func (a *Args) Validate(path *field.Path) field.ErrorList {
	errs := api.ValidateNamespaces(a.Namespaces, path.Child("namespaces"))
	for i, kind := range a.ExcludeOwnerKinds {
		if kind == "" {
			errs = append(errs, field.Invalid(path.Child("excludeOwnerKinds").Index(i), kind, "must not be empty"))
		}
	}
	return errs
}
