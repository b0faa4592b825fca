package outcome

import "testing"

func pct(v float64) *float64 { return &v }

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Observation
		want string
	}{
		// 88% → 64% with a 70% target: under it.
		{"relieved", Observation{Target: 70, ExpectsReplacement: true, Placed: true,
			SourceBefore: pct(88), SourceAfter: pct(64), DestinationBefore: pct(35), DestinationAfter: pct(48)}, Relieved},
		// Exactly at the target counts as relieved: hot means over it.
		{"at the target", Observation{Target: 70, SourceBefore: pct(88), SourceAfter: pct(70)}, Relieved},
		// 88% → 76%: lower, still over 70%.
		{"partly", Observation{Target: 70, SourceBefore: pct(88), SourceAfter: pct(76)}, PartlyRelieved},
		// 88% → 91%: the rest of the node's load grew more than the pod took.
		{"not relieved", Observation{Target: 70, SourceBefore: pct(88), SourceAfter: pct(91)}, NotRelieved},
		{"unchanged", Observation{Target: 70, SourceBefore: pct(88), SourceAfter: pct(88)}, NotRelieved},
		// The receiver went from 65% to 74%: hot because of the move.
		{"destination turned hot", Observation{Target: 70, ExpectsReplacement: true, Placed: true,
			SourceBefore: pct(88), SourceAfter: pct(60), DestinationBefore: pct(65), DestinationAfter: pct(74)}, DestinationHot},
		// A receiver hot before and after did not turn hot (the move did
		// not start a loop there).
		{"destination hot already", Observation{Target: 70, ExpectsReplacement: true, Placed: true,
			SourceBefore: pct(88), SourceAfter: pct(60), DestinationBefore: pct(75), DestinationAfter: pct(78)}, Relieved},
		// The receiver's usage before is unknown: over the target after is hot.
		{"destination unknown before", Observation{Target: 70, ExpectsReplacement: true, Placed: true,
			SourceBefore: pct(88), SourceAfter: pct(60), DestinationAfter: pct(72)}, DestinationHot},
		{"replacement pending", Observation{Target: 70, ExpectsReplacement: true,
			SourceBefore: pct(88), SourceAfter: pct(60)}, ReplacementPending},
		// A bare pod has no replacement to wait for.
		{"bare pod", Observation{Target: 70, SourceBefore: pct(88), SourceAfter: pct(60)}, Relieved},
		{"source unknown after", Observation{Target: 70, ExpectsReplacement: true, Placed: true,
			SourceBefore: pct(88), DestinationBefore: pct(40), DestinationAfter: pct(50)}, Unknown},
		{"source unknown before", Observation{Target: 70, SourceAfter: pct(60)}, Unknown},
	} {
		if got := Of(tc.o); got != tc.want {
			t.Errorf("%s: Of = %q, want %q", tc.name, got, tc.want)
		}
	}
}
