package window

import "time"

// entry is one stored measurement: a time in Unix nanoseconds and a value.
// Storing int64 nanoseconds instead of time.Time keeps an entry of two int64
// values at 24 bytes.
type entry[V any] struct {
	t int64
	v V
}

// outcome says what ring.add did with a sample.
type outcome int

// The outcomes of adding a sample.
const (
	// added means the sample was stored.
	added outcome = iota
	// duplicate means a sample with the same timestamp was already stored;
	// the new one was skipped.
	duplicate
	// tooOld means the sample was older than the window, or older than
	// every stored sample of a full ring; it was dropped.
	tooOld
)

// ring is a bounded buffer of entries ordered by time (oldest first). Its
// backing array grows on demand up to the capacity the caller passes, so a
// series that gets one sample per minute never allocates room for four per
// minute. Once full, adding a newer sample overwrites the oldest one.
// A ring is not safe for concurrent use; Store guards it.
type ring[V any] struct {
	buf  []entry[V]
	head int // index in buf of the oldest entry
	n    int // number of entries held
}

// minGrow is the size of a ring's first backing array.
const minGrow = 4

// at returns the i-th oldest entry.
func (r *ring[V]) at(i int) entry[V] { return r.buf[(r.head+i)%len(r.buf)] }

// set overwrites the i-th oldest entry.
func (r *ring[V]) set(i int, e entry[V]) { r.buf[(r.head+i)%len(r.buf)] = e }

// trim drops the entries older than cutoff (Unix nanoseconds).
func (r *ring[V]) trim(cutoff int64) {
	for r.n > 0 && r.buf[r.head].t < cutoff {
		r.head = (r.head + 1) % len(r.buf)
		r.n--
	}
	if r.n == 0 {
		r.head = 0
	}
}

// add stores e keeping time order: entries before cutoff are dropped first,
// a duplicate timestamp is skipped, and an out-of-order entry is inserted at
// its place. A full ring (n == capacity) drops its oldest entry to make
// room, unless e itself would be the oldest.
func (r *ring[V]) add(e entry[V], cutoff int64, capacity int) outcome {
	r.trim(cutoff)
	if e.t < cutoff {
		return tooOld
	}
	pos := r.n
	for pos > 0 && r.at(pos-1).t > e.t {
		pos--
	}
	if pos > 0 && r.at(pos-1).t == e.t {
		return duplicate
	}
	switch {
	case r.n >= capacity:
		if pos == 0 {
			return tooOld
		}
		r.head = (r.head + 1) % len(r.buf)
		r.n--
		pos--
	case r.n == len(r.buf):
		r.grow(capacity)
	}
	for i := r.n; i > pos; i-- {
		r.set(i, r.at(i-1))
	}
	r.set(pos, e)
	r.n++
	return added
}

// grow doubles the backing array (at least minGrow, at most capacity) and
// moves the entries to its start.
func (r *ring[V]) grow(capacity int) {
	size := max(minGrow, 2*len(r.buf))
	size = min(size, capacity)
	buf := make([]entry[V], size)
	for i := 0; i < r.n; i++ {
		buf[i] = r.at(i)
	}
	r.buf, r.head = buf, 0
}

// span returns the index range [from, to) of the entries inside
// [cutoff, until], both in Unix nanoseconds.
func (r *ring[V]) span(cutoff, until int64) (from, to int) {
	for from < r.n && r.at(from).t < cutoff {
		from++
	}
	to = r.n
	for to > from && r.at(to-1).t > until {
		to--
	}
	return from, to
}

// newest returns the time of the newest entry, or 0 when empty.
func (r *ring[V]) newest() int64 {
	if r.n == 0 {
		return 0
	}
	return r.at(r.n - 1).t
}

// unixTime converts Unix nanoseconds to a UTC time.
func unixTime(ns int64) time.Time { return time.Unix(0, ns).UTC() }
