package descheduler

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/framework"
)

// failingExecutor fails every eviction with err.
type failingExecutor struct{ err error }

func (e failingExecutor) Evict(context.Context, evictor.Eviction) (evictor.Result, error) {
	return evictor.ResultError, e.err
}

// TestCycleLogsFailedEvictions: a failed eviction is not returned by the
// cycle (it goes on with other pods), so the cycle logs it, with the pod,
// node, strategy and the error; otherwise an operator sees nothing.
func TestCycleLogsFailedEvictions(t *testing.T) {
	var lines []string
	logger := funcr.New(func(prefix, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 4})
	ctx := klog.NewContext(context.Background(), logger)
	c := &Cycle{Executor: failingExecutor{err: errors.New("evicting pod ns/a: no answer within 1s")},
		Profiles: []Profile{{Name: "p1", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{&listStrategy{name: "First", node: "n1"}}}}}
	c.Run(ctx, testSnapshot(t, map[string][]string{"n1": {"a"}}))
	for _, l := range lines {
		if strings.Contains(l, `"msg"="Eviction failed"`) && strings.Contains(l, "no answer within 1s") &&
			strings.Contains(l, `"pod"={"name"="a" "namespace"="ns"}`) && strings.Contains(l, `"node"="n1"`) &&
			strings.Contains(l, `"strategy"="First"`) {
			return
		}
	}
	t.Errorf("no 'Eviction failed' line with the error, pod, node and strategy: %q", lines)
}
