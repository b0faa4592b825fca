package e2e

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// poolProfile is lowNodeUtilizationProfile (20% / 50% by requests) named
// name and restricted by nodeSelector (YAML for the profile's field).
func poolProfile(name, nodeSelector string) string {
	return strings.Replace(lowNodeUtilizationProfile, "- name: spread\n",
		fmt.Sprintf("- name: %s\n  nodeSelector: %s\n", name, nodeSelector), 1)
}

// Profiles per node pool against the real control plane. Pool a is one
// node, a1, crowded with the 10 pods of web-a (75% cpu), which may run
// anywhere; pool b is b1, crowded with web-b (kept to pool b by its
// nodeSelector), and the empty b2. The pool-a profile has no destination
// among its nodes and evicts nothing, although web-a's pods fit b2
// (nodeFit would let them go if the profile saw b2); the pool-b profile
// evicts exactly the 4 pods that bring b1 under 50% and never looks at
// a1, and the kube-scheduler places the replacements on b2.
func TestProfileNodeSelector(t *testing.T) {
	tc := newCase(t, "profile-pools")
	tc.addNodes(stdNode("a1", map[string]string{"pool": "a"}), stdNode("b1", map[string]string{"pool": "b"}),
		stdNode("b2", map[string]string{"pool": "b"}))
	inPool := func(pool string) func(*corev1.PodSpec) {
		return func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{"pool": pool} }
	}
	wa, wb := crowdedWorkload, crowdedWorkload
	wa.name = "web-a"
	wb.name, wb.mutate = "web-b", inPool("b")
	beforeA := tc.crowd("a1", []string{"b1", "b2"}, wa)
	beforeB := tc.crowd("b1", []string{"a1", "b2"}, wb)

	run := tc.deschedule(tc.policy(poolProfile("pool-a", "pool=a") + poolProfile("pool-b", "{matchLabels: {pool: b}}"))).
		mustSucceed(tc)
	nowA := tc.waitRunning(wa.name, len(beforeA))
	if gone := setOf(beforeA).gone(nowA); len(gone) != 0 {
		t.Fatalf("pool a lost %v: its profile has no destination in its pool", gone)
	}
	var gone []string
	tc.eventually("web-b's evictions", func() (bool, error) {
		now, err := tc.pods(wb.name)
		gone = setOf(beforeB).gone(now)
		return len(gone) >= crowdedEvictions, err
	})
	if len(gone) != crowdedEvictions {
		t.Fatalf("evicted %v from b1, want %d pods", gone, crowdedEvictions)
	}
	if logged := run.logged(msgEvicted, tc.name); len(logged) != crowdedEvictions {
		t.Fatalf("logged evictions %v, want the %d of web-b", logged, crowdedEvictions)
	}
	nowB := tc.waitRunning(wb.name, len(beforeB))
	for _, p := range nowB {
		if _, old := setOf(beforeB)[p.UID]; !old && p.Spec.NodeName != tc.nodeName("b2") {
			t.Errorf("replacement %s on %s, want b2 (pool b's destination)", p.Name, p.Spec.NodeName)
		}
	}
}
