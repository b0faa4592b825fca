package window

import (
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// series is the samples of one node or pod, oldest first: buf[start:].
// It is copy-on-write: a sample written to buf is never changed, so Export
// hands the snapshot sub-slices of buf instead of copies. New samples are
// appended in buf's spare room; when there is none, or a sample arrives
// out of order, the held samples move to a new array (the old one lives on
// as long as a snapshot uses it). The room beyond capacity is
// spareRoom(capacity), so a full window is moved once every
// spareRoom(capacity) + 1 samples. A series is not safe for concurrent use;
// Store guards it.
type series struct {
	buf   snapshot.Series
	start int
}

// spareRoom is the room a full series has beyond its capacity: half of
// it, at least minGrow. A series takes (capacity + spareRoom) × 40 bytes
// instead of a ring's capacity × 24, about the ring plus the per-cycle
// copy it replaces.
func spareRoom(capacity int) int { return max(minGrow, capacity/2) }

// held returns the samples held, oldest first; they must not be modified.
func (r *series) held() snapshot.Series { return r.buf[r.start:] }

// trim drops the samples older than cutoff (Unix nanoseconds).
func (r *series) trim(cutoff int64) {
	for r.start < len(r.buf) && r.buf[r.start].Time.UnixNano() < cutoff {
		r.start++
	}
}

// add stores smp keeping time order, as ring.add: samples before cutoff
// are dropped first, a duplicate timestamp is skipped, an out-of-order
// sample is inserted at its place, and a full series (capacity samples)
// drops its oldest sample to make room unless smp would be the oldest.
func (r *series) add(smp snapshot.Sample, cutoff int64, capacity int) outcome {
	r.trim(cutoff)
	t := smp.Time.UnixNano()
	if t < cutoff {
		return tooOld
	}
	held := r.held()
	pos := len(held)
	for pos > 0 && held[pos-1].Time.UnixNano() > t {
		pos--
	}
	if pos > 0 && held[pos-1].Time.UnixNano() == t {
		return duplicate
	}
	if len(held) >= capacity {
		if pos == 0 {
			return tooOld
		}
		r.start++
		held, pos = held[1:], pos-1
	}
	if pos == len(held) && len(r.buf) < cap(r.buf) {
		r.buf = append(r.buf, smp) // spare room: no exported slice reaches it
		return added
	}
	size := min(capacity+spareRoom(capacity), max(minGrow, 2*(len(held)+1)))
	buf := make(snapshot.Series, 0, size)
	buf = append(append(append(buf, held[:pos]...), smp), held[pos:]...)
	r.buf, r.start = buf, 0
	return added
}

// span returns the held samples inside [cutoff, until] (Unix
// nanoseconds), sharing buf and capped so that appending to the result
// copies. Both ends are found by scanning from the outside in: a store
// trims a series when it adds a sample, so only the samples of a poll or
// two lie outside the window: a scan reads those and the first inside,
// where a binary search over a full window reads about five (the export
// of 150,000 series went from 137-167 to 72-123 ms, BenchmarkExport;
// docs/benchmarks.md, "The export's window edges").
func (r *series) span(cutoff, until int64) snapshot.Series {
	held := r.held()
	from := 0
	for from < len(held) && held[from].Time.UnixNano() < cutoff {
		from++
	}
	to := len(held)
	for to > from && held[to-1].Time.UnixNano() > until {
		to--
	}
	return held[from:to:to]
}

// newest returns the time of the newest sample, or 0 when empty.
func (r *series) newest() int64 {
	if r.start == len(r.buf) {
		return 0
	}
	return r.buf[len(r.buf)-1].Time.UnixNano()
}

// len returns the number of samples held.
func (r *series) len() int { return len(r.buf) - r.start }
