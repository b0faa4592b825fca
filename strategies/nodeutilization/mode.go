package nodeutilization

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/usage-descheduler/descheduler/pkg/api"
)

// ClassificationMode says which utilization view(s) classify nodes.
type ClassificationMode string

// The classification modes.
const (
	// ClassifyRequests classifies by pod requests only (the only mode of
	// metricsUtilization.source Requests).
	ClassifyRequests ClassificationMode = "Requests"
	// ClassifyUsage classifies by measured usage only; a pod still moves
	// only when some destination has request room for it.
	ClassifyUsage ClassificationMode = "Usage"
	// ClassifyBoth classifies by both views: over when over target in
	// either, under only when under threshold in both (the default with a
	// metrics source).
	ClassifyBoth ClassificationMode = "Both"
)

// ClassUnknownUsage is the Classifier class of a node whose usage is stale
// or missing: it is neither a source nor a destination.
const ClassUnknownUsage = "unknown-usage"

// DefaultClassification returns mode, or when it is empty the default for
// source: Requests for source Requests, Both for a metrics source.
func DefaultClassification(mode ClassificationMode, source api.MetricsSource) ClassificationMode {
	switch {
	case mode != "":
		return mode
	case source == api.SourceRequests || source == "":
		return ClassifyRequests
	default:
		return ClassifyBoth
	}
}

// ValidateClassification checks the classification arg at path: empty (not
// defaulted yet) or one of Requests, Usage, Both, and Requests whenever the source is Requests (there
// is no usage to classify by).
func ValidateClassification(mode ClassificationMode, source api.MetricsSource, path *field.Path) field.ErrorList {
	switch mode {
	case "", ClassifyRequests, ClassifyUsage, ClassifyBoth:
	default:
		return field.ErrorList{field.NotSupported(path, mode,
			[]ClassificationMode{ClassifyRequests, ClassifyUsage, ClassifyBoth})}
	}
	if mode != "" && mode != ClassifyRequests && (source == api.SourceRequests || source == "") {
		return field.ErrorList{field.Invalid(path, mode,
			"must be Requests when metricsUtilization.source is Requests (there is no usage to classify by)")}
	}
	return nil
}
