package api

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

func TestSelectorsProvablyOverlap(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"pool=batch", "pool=batch", true},
		{"pool=batch", "pool=general", false},
		{"pool=batch", "pool in (batch,gpu)", true},
		{"pool in (a,b)", "pool in (c,d)", false},
		// A narrowing: every node of the second is in the first.
		{"pool=batch", "pool=batch,spot=true", true},
		// Different keys: only the nodes' labels can tell.
		{"pool=batch", "spot=true", false},
		// Both accept a node without the key.
		{"pool!=a", "pool!=b", true},
		{"pool=a", "!pool", false},
		{"pool", "pool notin (x)", true},
		{"pool", "!pool", false},
		// Gt/Lt: 4 < v < 6 admits 5 unless 5 is excluded.
		{"size>4", "size<6", true},
		{"size>4", "size<6,size notin (5)", false},
		{"size>4", "size<5", false},
		{"size>4,size notin (5,6)", "size<8", true},
	} {
		a, err := labels.Parse(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := labels.Parse(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := SelectorsProvablyOverlap(a, b); got != tc.want {
			t.Errorf("%q vs %q: got %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SelectorsProvablyOverlap(b, a); got != tc.want {
			t.Errorf("%q vs %q: got %v, want %v (symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestProfileNodeSelectorEmpty(t *testing.T) {
	for s, want := range map[*ProfileNodeSelector]bool{
		nil:                               true,
		{Expression: ""}:                  true,
		{Expression: "pool=a"}:            false,
		{Object: &metav1.LabelSelector{}}: true,
	} {
		if got := s.Empty(); got != want {
			t.Errorf("%v: got %v, want %v", s, got, want)
		}
	}
}
