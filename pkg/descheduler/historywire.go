package descheduler

import (
	"math"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// wireFollowUp is the persisted snapshot.FollowUp: times in Unix seconds
// (0: none), usage percentages with one decimal.
type wireFollowUp struct {
	Instance          string   `json:"in,omitempty"`
	Profile           string   `json:"p,omitempty"`
	Cycle             int64    `json:"c,omitempty"`
	Target            float64  `json:"tg"`
	SourceBefore      *float64 `json:"sb,omitempty"`
	Replacement       string   `json:"r,omitempty"`
	Destination       string   `json:"d,omitempty"`
	ReplacementReady  int64    `json:"rr,omitempty"`
	DestinationBefore *float64 `json:"db,omitempty"`
	Outcome           string   `json:"o,omitempty"`
	Judged            int64    `json:"j,omitempty"`
	SourceAfter       *float64 `json:"sa,omitempty"`
	DestinationAfter  *float64 `json:"da,omitempty"`
	MeasuredMilliCPU  *int64   `json:"m,omitempty"`
}

func toWireFollowUp(f *snapshot.FollowUp) *wireFollowUp {
	if f == nil {
		return nil
	}
	return &wireFollowUp{Instance: f.Instance, Profile: f.Profile, Cycle: toUnix(f.Cycle), Target: round1(f.Target),
		SourceBefore: round1Ptr(f.SourceBefore), Replacement: f.Replacement, Destination: f.Destination,
		ReplacementReady: toUnix(f.ReplacementReady), DestinationBefore: round1Ptr(f.DestinationBefore),
		Outcome: f.Outcome, Judged: toUnix(f.Judged), SourceAfter: round1Ptr(f.SourceAfter),
		DestinationAfter: round1Ptr(f.DestinationAfter), MeasuredMilliCPU: f.MeasuredMilliCPU}
}

func fromWireFollowUp(w *wireFollowUp) *snapshot.FollowUp {
	if w == nil {
		return nil
	}
	return &snapshot.FollowUp{Instance: w.Instance, Profile: w.Profile, Cycle: fromUnix(w.Cycle), Target: w.Target,
		SourceBefore: w.SourceBefore, Replacement: w.Replacement, Destination: w.Destination,
		ReplacementReady: fromUnix(w.ReplacementReady), DestinationBefore: w.DestinationBefore,
		Outcome: w.Outcome, Judged: fromUnix(w.Judged), SourceAfter: w.SourceAfter,
		DestinationAfter: w.DestinationAfter, MeasuredMilliCPU: w.MeasuredMilliCPU}
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func round1Ptr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := round1(*v)
	return &r
}
