package descheduler

import (
	"context"
	"testing"

	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// usageStrategy proposes p1 with the usage it counted it to take off n1.
type usageStrategy struct{}

func (usageStrategy) Name() string { return "Usage" }

func (usageStrategy) Plan(_ context.Context, snap *snapshot.Snapshot, _ framework.Evictor) ([]framework.Candidate, error) {
	ni, _ := snap.Node("n1")
	return []framework.Candidate{{Pod: ni.Pods[0].Pod, Node: "n1", Reason: "hot",
		Usage: &resources.List{MilliCPU: 900, Memory: 1 << 20}}}, nil
}

// The candidate's usage reaches the record, and from it the history.
func TestCycleKeepsCandidateUsage(t *testing.T) {
	snap := testSnapshot(t, map[string][]string{"n1": {"p1"}})
	c := &Cycle{Profiles: []Profile{{Name: "p", EvictorArgs: defaultArgs(), Balance: []framework.Strategy{usageStrategy{}}}},
		Executor: &scriptedExecutor{}}
	rep := c.Run(context.Background(), snap)
	if len(rep.Records) != 1 || rep.Records[0].Usage == nil || rep.Records[0].Usage.MilliCPU != 900 {
		t.Fatalf("records %+v, want p1 with 900m", rep.Records)
	}
	s := &State{}
	s.RecordCycle(snap.Now, rep, nil)
	got, _ := s.Contents()
	if len(got) != 1 || got[0].MilliCPU != 900 || got[0].Memory != 1<<20 {
		t.Errorf("history %+v, want 900m and 1Mi (not p1's 100m request)", got)
	}
}
