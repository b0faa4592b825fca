package snapshot

import (
	"slices"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/builders"
)

// SamplesSince (sorted series) and SamplesSinceCreation (any order) keep
// the samples taken at or after the pod's creation.
func TestSamplesSinceCreation(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(sec ...int) Series {
		var s Series
		for _, x := range sec {
			s = append(s, Sample{Time: t0.Add(time.Duration(x) * time.Second), MilliCPU: int64(x)})
		}
		return s
	}
	values := func(s Series) []int64 {
		out := []int64{}
		for _, x := range s {
			out = append(out, x.MilliCPU)
		}
		return out
	}
	tests := []struct {
		name    string
		created int // seconds after t0; -1: no creationTimestamp
		series  Series
		want    []int64
	}{
		{"no creationTimestamp keeps all", -1, at(0, 15, 30), []int64{0, 15, 30}},
		{"created before every sample keeps all", 0, at(0, 15, 30), []int64{0, 15, 30}},
		{"a sample at the creation instant is kept", 15, at(0, 15, 30), []int64{15, 30}},
		{"created after every sample drops all", 45, at(0, 15, 30), []int64{}},
		{"unsorted input", 10, at(30, 0, 15), []int64{30, 15}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := builders.MakePod("ns", "p")
			if tc.created >= 0 {
				b.Created(t0.Add(time.Duration(tc.created) * time.Second))
			}
			p := b.Obj()
			if got := values(SamplesSinceCreation(tc.series, p)); !slices.Equal(got, tc.want) {
				t.Errorf("SamplesSinceCreation = %v, want %v", got, tc.want)
			}
			if !slices.IsSortedFunc(tc.series, func(a, b Sample) int { return a.Time.Compare(b.Time) }) {
				return
			}
			if got := values(SamplesSince(tc.series, p.CreationTimestamp.Time)); !slices.Equal(got, tc.want) {
				t.Errorf("SamplesSince = %v, want %v", got, tc.want)
			}
		})
	}
}
