package window

import (
	"fmt"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// TestSeriesSpan: span keeps the samples in [cutoff, until], both ends
// included, whatever lies outside on either side. Samples at t0 + 0, 15,
// 30, 45 and 60 s (held from start 1 on, so the sample at −15 s before it
// never shows).
func TestSeriesSpan(t *testing.T) {
	at := func(sec int) int64 { return t0.Add(time.Duration(sec) * time.Second).UnixNano() }
	r := &series{start: 1}
	for _, sec := range []int{-15, 0, 15, 30, 45, 60} {
		r.buf = append(r.buf, snapshot.Sample{Time: t0.Add(time.Duration(sec) * time.Second), MilliCPU: int64(sec)})
	}
	tests := []struct {
		name          string
		cutoff, until int64
		want          string
	}{
		{name: "all inside", cutoff: at(-60), until: at(120), want: "[0 15 30 45 60]"},
		{name: "ends on samples are kept", cutoff: at(15), until: at(45), want: "[15 30 45]"},
		{name: "ends between samples", cutoff: at(10), until: at(50), want: "[15 30 45]"},
		{name: "one sample", cutoff: at(29), until: at(31), want: "[30]"},
		{name: "everything older than the window", cutoff: at(61), until: at(120), want: "[]"},
		{name: "everything newer than until", cutoff: at(-60), until: at(-1), want: "[]"},
		{name: "empty window between samples", cutoff: at(16), until: at(29), want: "[]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := r.span(tc.cutoff, tc.until)
			var secs []int64
			for _, s := range got {
				secs = append(secs, s.MilliCPU)
			}
			if s := fmt.Sprint(secs); s != tc.want {
				t.Errorf("span = %s, want %s", s, tc.want)
			}
			if cap(got) != len(got) {
				t.Errorf("span has spare capacity %d: appending to it would write into the store", cap(got)-len(got))
			}
		})
	}
	empty := &series{}
	if got := empty.span(at(0), at(60)); len(got) != 0 {
		t.Errorf("empty series: span = %v", got)
	}
}
