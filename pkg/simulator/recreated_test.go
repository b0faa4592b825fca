package simulator

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// A snapshot file's pod recreated under the same name (a StatefulSet pod)
// does not seed its simulated load from its predecessor's samples. In
// usageObjects p1's series says 1000m over the last 10 minutes; here p1
// was created 20s ago, so only the samples at 15s ago and now are its own:
// two, fewer than minSamples 3, so its usage is unknown, its load is its
// 500m request and, like p2, it gets no simulated samples (with the
// predecessor's samples it was known at 1000m and sampled at every tick).
// Node a keeps 2000m either way: base 2000 − (500 + 500) = 1000m, plus
// its pods' 500m + 500m.
func TestSimulatedPodLoadSinceCreation(t *testing.T) {
	objs := usageObjects()
	objs.Pods[0].CreationTimestamp.Time = t0.Add(-20 * time.Second)
	c := newTestCluster(t, objs)
	key := types.NamespacedName{Namespace: "ns", Name: "p1"}
	if pl := c.usage.pods[key]; pl.known || pl.load.milliCPU != 500 {
		t.Errorf("p1 load %+v, want unknown at its 500m request", pl)
	}
	tick := t0.Add(15 * time.Second)
	c.usage.advance(tick, c.pods)
	exp, _ := c.usage.export(tick)
	if s := exp.Pods[key]; len(s) > 0 && s[len(s)-1].Time.Equal(tick) {
		t.Errorf("p1 sampled at the tick (%dm), want no simulated sample for unknown usage", s[len(s)-1].MilliCPU)
	}
	if s := exp.Nodes["a"]; s[len(s)-1].MilliCPU != 2000 {
		t.Errorf("a cpu %dm, want 2000m", s[len(s)-1].MilliCPU)
	}
}
