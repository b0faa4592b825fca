// Package progress reports the progress of long work (loading a snapshot,
// generating a cluster, collecting samples, simulating cycles) on standard
// error: a redrawn bar on a terminal, plain lines at a fixed interval
// otherwise (logs, CI), nothing when quiet.
//
// The terminal bar is github.com/schollz/progressbar/v3: a small, widely
// used library without cgo that draws counts, byte sizes, rates, elapsed
// and estimated time and a spinner for work of unknown size, redraws at
// most every few milliseconds, and is safe for concurrent use. Plain lines
// are written here, since no such library writes log-friendly lines.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"k8s.io/utils/clock"
)

// Unit is what a task counts.
type Unit int

const (
	// Items are objects, nodes or polls.
	Items Unit = iota
	// Bytes are bytes read or written.
	Bytes
)

// DefaultEvery is how often plain lines are written.
const DefaultEvery = 5 * time.Second

// Options configure a Reporter.
type Options struct {
	// Out receives the progress (standard error).
	Out io.Writer
	// Terminal: Out is a terminal, so a bar is redrawn in place.
	Terminal bool
	// Quiet reports nothing.
	Quiet bool
	// Clock times the plain lines and their estimates.
	Clock clock.PassiveClock
	// Every is the interval of plain lines (DefaultEvery when zero).
	Every time.Duration
}

// Reporter starts tasks.
type Reporter struct{ opts Options }

// New returns a Reporter.
func New(opts Options) *Reporter {
	if opts.Every <= 0 {
		opts.Every = DefaultEvery
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Reporter{opts: opts}
}

// Task is one piece of work in progress.
type Task interface {
	// Add records n more units done.
	Add(n int64)
	// Set records that n units are done in all.
	Set(n int64)
	// Done ends the task, writing its final state.
	Done()
}

// Start begins a task named desc of total units (a total < 0 is unknown).
func (r *Reporter) Start(desc string, total int64, unit Unit) Task {
	switch {
	case r == nil || r.opts.Quiet || r.opts.Out == nil:
		return nop{}
	case r.opts.Terminal:
		return newBar(r.opts.Out, desc, total, unit)
	default:
		now := r.opts.Clock.Now()
		return &lines{opts: r.opts, desc: desc, total: total, unit: unit, start: now, last: now}
	}
}

type nop struct{}

func (nop) Add(int64) {}
func (nop) Set(int64) {}
func (nop) Done()     {}

// bar draws a terminal progress bar.
type bar struct{ b *progressbar.ProgressBar }

func newBar(out io.Writer, desc string, total int64, unit Unit) *bar {
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(out),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetRenderBlankState(true),
	}
	if unit == Bytes {
		opts = append(opts, progressbar.OptionShowBytes(true))
	}
	if total < 0 {
		opts = append(opts, progressbar.OptionSpinnerType(14))
	}
	return &bar{b: progressbar.NewOptions64(total, opts...)}
}

func (b *bar) Add(n int64) { _ = b.b.Add64(n) }
func (b *bar) Set(n int64) { _ = b.b.Set64(n) }
func (b *bar) Done()       { _ = b.b.Finish() }

// lines writes "desc: 45.2 MB of 120.0 MB (37%), 4s elapsed, about 7s
// left" at most once per interval, and a last line when done; work done
// within the first interval writes nothing.
type lines struct {
	opts  Options
	desc  string
	total int64
	unit  Unit

	mu    sync.Mutex
	done  int64
	start time.Time
	last  time.Time
	ended bool
}

func (l *lines) Add(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done += n
	l.maybeWrite()
}

func (l *lines) Set(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = n
	l.maybeWrite()
}

func (l *lines) maybeWrite() {
	now := l.opts.Clock.Now()
	if now.Sub(l.last) < l.opts.Every || l.ended {
		return
	}
	l.last = now
	fmt.Fprintln(l.opts.Out, l.line(now))
}

func (l *lines) Done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return
	}
	l.ended = true
	if !l.last.After(l.start) {
		return // finished within the first interval: nothing to report
	}
	elapsed := l.opts.Clock.Since(l.start).Round(time.Millisecond)
	fmt.Fprintf(l.opts.Out, "%s: done, %s in %s\n", l.desc, l.amount(l.done), elapsed)
}

// line is the periodic line at now.
func (l *lines) line(now time.Time) string {
	elapsed := now.Sub(l.start)
	s := fmt.Sprintf("%s: %s", l.desc, l.amount(l.done))
	if l.total > 0 {
		s += fmt.Sprintf(" of %s (%d%%)", l.amount(l.total), l.done*100/l.total)
	}
	s += fmt.Sprintf(", %s elapsed", elapsed.Round(time.Second))
	if l.total > 0 && l.done > 0 && l.done < l.total {
		left := time.Duration(float64(elapsed) * float64(l.total-l.done) / float64(l.done))
		s += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return s
}

func (l *lines) amount(n int64) string {
	if l.unit == Bytes {
		return FormatBytes(n)
	}
	return fmt.Sprint(n)
}

// FormatBytes renders a size in decimal units, e.g. "45.2 MB".
func FormatBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}
