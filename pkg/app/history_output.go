package app

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// HistoryOut is the output of `descheduler history -o json`. Fields are
// only ever added, never renamed.
type HistoryOut struct {
	// Evictions are the listed evictions, oldest first.
	Evictions []HistoryEviction `json:"evictions"`
	// Outcomes counts the listed evictions by outcome: every name of
	// historyOutcomes (the judged outcomes, OutcomeFollowing and
	// OutcomeNotFollowed), zeros included.
	Outcomes map[string]int `json:"outcomes"`

	// total is how many evictions the history holds before the filters
	// (not part of the output).
	total int
}

// HistoryEviction is one eviction of the history with its follow-up. The
// fields named as those of simulate --cycles' moves (simulator.Move) mean
// the same, so the two compare side by side. Usage figures are percentages
// of the node's allocatable cpu.
type HistoryEviction struct {
	// Time is when the eviction was made.
	Time time.Time `json:"time"`
	// Pod is the evicted pod, "namespace/name".
	Pod string `json:"pod"`
	// Strategy is the plugin that evicted the pod.
	Strategy string `json:"strategy"`
	// Profile is the profile of the strategy; known for followed
	// evictions only.
	Profile string `json:"profile,omitempty"`
	// Instance is the descheduler instance that made and follows the
	// eviction (its --instance-name); known for followed evictions.
	Instance string `json:"instance,omitempty"`
	// From is the node the evicted pod ran on.
	From string `json:"from"`
	// Owner is the pod's controller, "Kind/name"; empty for a pod without
	// one.
	Owner string `json:"owner,omitempty"`
	// Replacement is the pod the controller created instead,
	// "namespace/name"; empty until one is seen.
	Replacement string `json:"replacement,omitempty"`
	// To is the node the replacement was bound to; empty while it is
	// pending or unknown.
	To string `json:"to,omitempty"`
	// ReplacementReady is when the replacement became Ready.
	ReplacementReady *time.Time `json:"replacementReady,omitempty"`
	// ReliefMilliCPU is the planned relief in millicores: the usage the
	// plan counted the pod to take off From (its requests when its usage
	// was unknown).
	ReliefMilliCPU int64 `json:"reliefMilliCPU"`
	// MeasuredReliefMilliCPU is how far From's cpu usage fell between the
	// eviction and its judgement, in millicores, this eviction's share of
	// it; absent when unknown or not judged yet.
	MeasuredReliefMilliCPU *int64 `json:"measuredReliefMilliCPU,omitempty"`
	// Outcome is the judged outcome (package outcome); empty while the
	// eviction is followed and for evictions that are not followed.
	Outcome string `json:"outcome,omitempty"`
	// Following is true while the eviction is followed: no outcome yet.
	Following bool `json:"following,omitempty"`
	// Target is the cpu usage percentage over which a node counts as hot
	// for the strategy, when the eviction was planned.
	Target float64 `json:"target,omitempty"`
	// SourceUsageBefore and SourceUsageAfter are From's cpu usage when the
	// eviction was planned and when its outcome was judged;
	// DestinationUsageBefore is To's when the replacement was first seen
	// there, DestinationUsageAfter To's at the judgement. Absent when
	// unknown.
	SourceUsageBefore      *float64 `json:"sourceUsageBefore,omitempty"`
	SourceUsageAfter       *float64 `json:"sourceUsageAfter,omitempty"`
	DestinationUsageBefore *float64 `json:"destinationUsageBefore,omitempty"`
	DestinationUsageAfter  *float64 `json:"destinationUsageAfter,omitempty"`
	// Judged is when the outcome was judged.
	Judged *time.Time `json:"judged,omitempty"`
}

// historyFilter selects the listed evictions.
type historyFilter struct {
	// since: only evictions at or after it; zero: every eviction.
	since time.Time
	// outcomes: only evictions whose historyOutcome is one of these;
	// empty: every eviction.
	outcomes []string
}

func (f historyFilter) match(e snapshot.Eviction) bool {
	if !f.since.IsZero() && e.Time.Before(f.since) {
		return false
	}
	return len(f.outcomes) == 0 || slices.Contains(f.outcomes, historyOutcome(e))
}

// historyOutcome is the eviction's judged outcome, OutcomeFollowing while
// it is followed, OutcomeNotFollowed when it is not.
func historyOutcome(e snapshot.Eviction) string {
	switch {
	case e.FollowUp == nil:
		return OutcomeNotFollowed
	case e.FollowUp.Open():
		return OutcomeFollowing
	}
	return e.FollowUp.Outcome
}

// buildHistory lists the evictions f selects, oldest first, and counts
// their outcomes.
func buildHistory(entries []snapshot.Eviction, f historyFilter) *HistoryOut {
	sorted := slices.Clone(entries)
	slices.SortStableFunc(sorted, func(a, b snapshot.Eviction) int { return a.Time.Compare(b.Time) })
	out := &HistoryOut{Evictions: []HistoryEviction{}, Outcomes: map[string]int{}, total: len(entries)}
	for _, o := range historyOutcomes() {
		out.Outcomes[o] = 0
	}
	for _, e := range sorted {
		if !f.match(e) {
			continue
		}
		out.Evictions = append(out.Evictions, historyEviction(e))
		out.Outcomes[historyOutcome(e)]++
	}
	return out
}

// historyEviction converts one eviction for the output.
func historyEviction(e snapshot.Eviction) HistoryEviction {
	h := HistoryEviction{Time: e.Time.UTC(), Pod: e.Namespace + "/" + e.Pod, Strategy: e.Strategy, From: e.Node,
		ReliefMilliCPU: e.MilliCPU}
	if e.OwnerKind != "" {
		h.Owner = e.OwnerKind + "/" + e.OwnerName
	}
	f := e.FollowUp
	if f == nil {
		return h
	}
	h.Profile, h.Instance, h.To, h.Target = f.Profile, f.Instance, f.Destination, f.Target
	if f.Replacement != "" {
		h.Replacement = e.Namespace + "/" + f.Replacement
	}
	h.ReplacementReady, h.Judged = utcOrNil(f.ReplacementReady), utcOrNil(f.Judged)
	h.MeasuredReliefMilliCPU = f.MeasuredMilliCPU
	h.Outcome, h.Following = f.Outcome, f.Open()
	h.SourceUsageBefore, h.SourceUsageAfter = f.SourceBefore, f.SourceAfter
	h.DestinationUsageBefore, h.DestinationUsageAfter = f.DestinationBefore, f.DestinationAfter
	return h
}

// utcOrNil is t in UTC, nil for the zero time.
func utcOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// writeHistory writes the history in format (table, json or yaml).
func writeHistory(w io.Writer, format string, h *HistoryOut) error {
	switch format {
	case "json":
		return writeJSON(w, h)
	case "yaml":
		return writeYAML(w, h)
	}
	return h.WriteTable(w)
}

// WriteTable writes one row per eviction, oldest first, and a line
// counting their outcomes:
//
//	TIME  POD  STRATEGY  FROM  TO  PLANNED  MEASURED  OUTCOME
//
// TO is "-" while the replacement is pending or unknown, MEASURED "-"
// when unknown; OUTCOME is "following" while the eviction is followed and
// "-" when it is not followed.
func (h *HistoryOut) WriteTable(w io.Writer) error {
	if len(h.Evictions) == 0 {
		if h.total == 0 {
			_, err := fmt.Fprintln(w, "no evictions in the history")
			return err
		}
		_, err := fmt.Fprintf(w, "no evictions match --since and --outcome (%d in the history)\n", h.total)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tPOD\tSTRATEGY\tFROM\tTO\tPLANNED\tMEASURED\tOUTCOME")
	for _, e := range h.Evictions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%dm\t%s\t%s\n", e.Time.Format(time.RFC3339), e.Pod, e.Strategy, e.From,
			orDash(e.To), e.ReliefMilliCPU, milliColumn(e.MeasuredReliefMilliCPU), outcomeColumn(e))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s\n", h.summary())
	return err
}

// summary is the table's last line, e.g. "6 evictions; outcomes:
// destination_hot 1, relieved 3, following 1, not followed 1": the
// non-zero counts in the order of historyOutcomes.
func (h *HistoryOut) summary() string {
	var parts []string
	for _, o := range historyOutcomes() {
		if n := h.Outcomes[o]; n > 0 {
			if o == OutcomeNotFollowed {
				o = "not followed"
			}
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
		}
	}
	noun := "evictions"
	if len(h.Evictions) == 1 {
		noun = "eviction"
	}
	return joinWrapped(fmt.Sprintf("%d %s; outcomes: ", len(h.Evictions), noun), parts, tableWidth)
}

// joinWrapped is prefix followed by items joined with ", ", broken into
// lines of at most width characters between items (never inside one);
// continuation lines are indented by two spaces.
func joinWrapped(prefix string, items []string, width int) string {
	var b strings.Builder
	b.WriteString(prefix)
	line := len(prefix)
	for i, item := range items {
		sep := ", "
		if i == 0 {
			sep = ""
		}
		if i > 0 && line+len(sep)+len(item) > width {
			b.WriteString(",\n  ")
			line, sep = 2, ""
		}
		b.WriteString(sep + item)
		line += len(sep) + len(item)
	}
	return b.String()
}

// milliColumn is v in millicores ("1097m"), "-" when unknown.
func milliColumn(v *int64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%dm", *v)
}

// outcomeColumn is the table's OUTCOME.
func outcomeColumn(e HistoryEviction) string {
	switch {
	case e.Following:
		return OutcomeFollowing
	case e.Outcome == "":
		return "-"
	}
	return e.Outcome
}
