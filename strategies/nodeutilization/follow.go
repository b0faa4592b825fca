package nodeutilization

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// Follow returns the framework.UsageFollow of views, with target the
// cpu percentage over which a node is hot; false unless the views classify
// by usage and measure cpu (mode Requests, or a MetricResource query
// alone, has no cpu usage to judge an outcome by).
func Follow(views Views, window time.Duration, target Thresholds) (framework.UsageFollow, bool) {
	t, ok := target[v1.ResourceCPU]
	if views.Mode == ClassifyRequests || views.Usage == nil || !views.Measures.CPUMemory || !ok {
		return framework.UsageFollow{}, false
	}
	u := views.Usage
	return framework.UsageFollow{Target: t, Window: window, NodeCPU: func(node string) (float64, bool) {
		nu := u.Node(node)
		if !nu.Known {
			return 0, false
		}
		return nu.CPUPercent, true
	}}, true
}
