package app

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// HysteresisOut is one strategy's usage hysteresis state of a node.
type HysteresisOut struct {
	// Source: the node is a usage source (hot) for the strategy.
	Source bool `json:"source"`
	// HotSince is when its usage went over target and stayed there.
	HotSince *time.Time `json:"hotSince,omitempty"`
	// SourceSince is when it became a source.
	SourceSince *time.Time `json:"sourceSince,omitempty"`
	// LastEviction is the strategy's last eviction from the node in the
	// history (its nodeCooldown runs from here).
	LastEviction *time.Time `json:"lastEviction,omitempty"`
}

// loadHistory reads a --history file (the format the descheduler keeps in
// its ConfigMap, see descheduler.EncodeHistory) into a State.
func loadHistory(path string) (*descheduler.State, error) {
	state := &descheduler.State{}
	if path == "" {
		return state, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	entries, states, err := descheduler.DecodeHistory(data)
	if err != nil {
		return nil, fmt.Errorf("--history %s: %w", path, err)
	}
	state.Merge(entries, states)
	return state, nil
}

// explain adds, per node, the hysteresis state the strategies would record
// and the soft-taint action the descheduler would take.
func explain(ctx context.Context, out *Simulation, snap *snapshot.Snapshot, profiles []descheduler.Profile) {
	states := descheduler.CollectNodeStates(ctx, profiles, snap)
	key, _, enabled, _ := descheduler.SoftTaintConfig(profiles)
	var want map[string]bool
	if enabled {
		want = descheduler.WantTainted(ctx, profiles, snap)
	}
	strategies := make([]string, 0, len(states))
	for s := range states {
		strategies = append(strategies, s)
	}
	sort.Strings(strategies)
	for i := range out.Nodes {
		n := &out.Nodes[i]
		for _, strat := range strategies {
			st, ok := states[strat][n.Name]
			if !ok {
				continue
			}
			if n.Hysteresis == nil {
				n.Hysteresis = map[string]HysteresisOut{}
			}
			h := HysteresisOut{Source: st.Source, HotSince: timePtr(st.HotSince), SourceSince: timePtr(st.SourceSince)}
			if at, ok := snap.History().LastNodeEviction(strat, n.Name); ok {
				h.LastEviction = timePtr(at)
			}
			n.Hysteresis[strat] = h
		}
		if ni, ok := snap.Node(n.Name); ok && enabled {
			n.Taint = taintAction(hasSoftTaint(ni.Node, key), want[n.Name])
		}
	}
}

func taintAction(has, want bool) string {
	switch {
	case want && !has:
		return "add"
	case !want && has:
		return "remove"
	case want:
		return "keep"
	default:
		return ""
	}
}

func hasSoftTaint(n *v1.Node, key string) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == v1.TaintEffectPreferNoSchedule {
			return true
		}
	}
	return false
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// hysteresisColumn summarises a node's hysteresis for the table.
func hysteresisColumn(n NodeOut) string {
	var parts []string
	for strat, h := range n.Hysteresis {
		if !h.Source && h.HotSince == nil {
			continue
		}
		s := strat + ":"
		if h.Source {
			s += "source"
		}
		if h.HotSince != nil {
			s += " hot since " + h.HotSince.Format(time.RFC3339)
		}
		if h.LastEviction != nil {
			s += " last eviction " + h.LastEviction.Format(time.RFC3339)
		}
		parts = append(parts, s)
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}
