package app

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
)

// loadHistory reads a --history file (the format the descheduler keeps in
// its ConfigMap, see descheduler.EncodeHistory) into a State.
func loadHistory(path string) (*descheduler.State, error) {
	state := &descheduler.State{}
	if path == "" {
		return state, nil
	}
	entries, states, err := readHistoryFile(path)
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	state.Merge(entries, states)
	return state, nil
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
