package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func TestPlainLines(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var out bytes.Buffer
	r := New(Options{Out: &out, Clock: clk, Every: 5 * time.Second})
	task := r.Start("loading snapshot", 120_000_000, Bytes)
	task.Add(10_000_000) // before the first interval: no line
	clk.SetTime(clk.Now().Add(4 * time.Second))
	task.Add(35_200_000) // 45.2 MB after 4s: still within the interval
	clk.SetTime(clk.Now().Add(2 * time.Second))
	task.Add(14_800_000) // 60 MB of 120 MB after 6s: half done, about 6s left
	clk.SetTime(clk.Now().Add(6 * time.Second))
	task.Set(120_000_000)
	task.Done()
	task.Done() // a second Done writes nothing
	// The Set at 12s is 6s after the last line, so it writes one too.
	want := "loading snapshot: 60.0 MB of 120.0 MB (50%), 6s elapsed, about 6s left\n" +
		"loading snapshot: 120.0 MB of 120.0 MB (100%), 12s elapsed\n" +
		"loading snapshot: done, 120.0 MB in 12s\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestUnknownTotalAndCounts(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var out bytes.Buffer
	task := New(Options{Out: &out, Clock: clk}).Start("simulating", -1, Items)
	clk.SetTime(clk.Now().Add(DefaultEvery))
	task.Add(3)
	task.Done()
	want := "simulating: 3, 5s elapsed\nsimulating: done, 3 in 5s\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestQuickWorkWritesNothing(t *testing.T) {
	clk := testingclock.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var out bytes.Buffer
	task := New(Options{Out: &out, Clock: clk}).Start("loading snapshot", 100, Bytes)
	clk.SetTime(clk.Now().Add(time.Second))
	task.Add(100)
	task.Done()
	if out.Len() != 0 {
		t.Errorf("a one-second task wrote %q", out.String())
	}
}

func TestQuietAndTerminal(t *testing.T) {
	var quiet bytes.Buffer
	task := New(Options{Out: &quiet, Quiet: true}).Start("x", 10, Items)
	task.Add(10)
	task.Done()
	if quiet.Len() != 0 {
		t.Errorf("quiet wrote %q", quiet.String())
	}
	var term bytes.Buffer
	task = New(Options{Out: &term, Terminal: true}).Start("cycles", 4, Items)
	task.Add(2)
	if !strings.Contains(term.String(), "cycles") || !strings.Contains(term.String(), "\r") {
		t.Errorf("terminal bar not drawn in place: %q", term.String())
	}
	task.Done()
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{999: "999 B", 1000: "1.0 kB", 45_200_000: "45.2 MB", 2_500_000_000: "2.5 GB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
