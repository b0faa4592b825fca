package lownodeutilization

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/strategies/nodeutilization/nodeutiltest"
)

// countingEvictor counts Filter calls.
type countingEvictor struct {
	nodeutiltest.Evictor
	filtered int
}

func (e *countingEvictor) Filter(p *v1.Pod) bool {
	e.filtered++
	return e.Evictor.Filter(p)
}

// A source already at its node limit (here: a per-node limit of 0, as
// when other strategies or earlier rounds of the cycle used it up) is left
// after finding one evictable pod, not after filtering and ordering all of
// its pods: n4 (4 pods, its first denied) and n1 (3 pods) cost 2 + 1
// Filter calls instead of 4 + 3. The plan and the log lines up to V(2) are
// those of the full path, which V(3) takes (it logs every source's
// evictable pods).
func TestPlanLeavesSourcesAtTheirLimitEarly(t *testing.T) {
	zero := uint(0)
	plan := func(verbosity int) (cands []string, filtered int, lines []string) {
		s := mustNew(t, baseArgs())
		ev := &countingEvictor{Evictor: nodeutiltest.Evictor{Limits: framework.Limits{PerNode: &zero},
			Deny: map[string]bool{"ns/n4-1": true}}}
		logger := funcr.New(func(prefix, msg string) {
			lines = append(lines, msg)
		}, funcr.Options{Verbosity: verbosity, LogInfoLevel: ptrTo("v")})
		ctx := klog.NewContext(context.Background(), logr.Logger(logger))
		got, err := s.Plan(ctx, nodeutiltest.Snapshot(t, nodes("n1", "n2", "n3", "n4"), basePods()), ev)
		if err != nil {
			t.Fatal(err)
		}
		return nodeutiltest.Names(got), ev.filtered, lines
	}
	fullCands, fullFiltered, fullLines := plan(3)
	cands, filtered, lines := plan(2)
	if !reflect.DeepEqual(cands, fullCands) || len(cands) != 0 {
		t.Errorf("candidates %v, full path %v; want none in both", cands, fullCands)
	}
	if filtered != 3 || fullFiltered != 7 {
		t.Errorf("Filter calls: %d (want 3), full path %d (want 7)", filtered, fullFiltered)
	}
	var fullUpToV2, upToV2 []string
	for _, l := range fullLines {
		if !strings.Contains(l, `"v"=3`) {
			fullUpToV2 = append(fullUpToV2, msgAndNode(l))
		}
	}
	for _, l := range lines {
		upToV2 = append(upToV2, msgAndNode(l))
	}
	if !reflect.DeepEqual(upToV2, fullUpToV2) {
		t.Errorf("log lines up to V(2):\n got %q\nfull %q", upToV2, fullUpToV2)
	}
	if n := count(lines, "Node eviction limit reached"); n != 2 {
		t.Errorf("%d \"Node eviction limit reached\" lines, want 2 (n4, n1):\n%q", n, lines)
	}
}

func ptrTo[T any](v T) *T { return &v }

// msgAndNode keeps a funcr line's message and node (the other values print
// maps in random order).
func msgAndNode(line string) string {
	out := ""
	for _, key := range []string{`"msg"=`, `"node"=`} {
		if i := strings.Index(line, key); i >= 0 {
			rest := line[i+len(key):]
			if j := strings.Index(rest[1:], `"`); j >= 0 {
				out += key + rest[:j+2] + " "
			}
		}
	}
	return out
}

func count(lines []string, sub string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}
