package metricsserver

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/usage-descheduler/descheduler/collectors"
)

// chunkReader returns at most size bytes per Read, so that tokens straddle
// the ends of what the scanner has read.
type chunkReader struct {
	data []byte
	size int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// decodeBoth decodes data as pods and as nodes from r(data), returning
// everything the decoders give, error texts included.
func decodeBoth(data []byte, r func([]byte) io.Reader) []any {
	var pp, np collectors.Problems
	pods, podErr := DecodePods(r(data), &pp)
	nodes, nodeErr := DecodeNodes(r(data), &np)
	return []any{pods, errText(pp.Err()), errText(podErr), nodes, errText(np.Err()), errText(nodeErr)}
}

func whole(data []byte) io.Reader { return bytes.NewReader(data) }

// TestStreamChunked: reading the body one byte at a time, or in chunks of
// 7 bytes, gives what reading it at once gives: samples, problems and
// errors (offsets included), on realistic, odd and tricky lists.
func TestStreamChunked(t *testing.T) {
	inputs := append(trickySeeds(), realisticPods(200), []byte(oddPods))
	for i, data := range inputs {
		want := decodeBoth(data, whole)
		for name, r := range map[string]func([]byte) io.Reader{
			"one byte": func(d []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(d)) },
			"7 bytes":  func(d []byte) io.Reader { return &chunkReader{data: d, size: 7} },
		} {
			if got := decodeBoth(data, r); !reflect.DeepEqual(got, want) {
				t.Errorf("input %d, %s at a time: %v, want %v", i, name, got, want)
			}
		}
	}
}

// TestStreamLargeTokens: strings longer than the read buffer (an unknown
// field and a pod name) are read whole, the buffer growing to hold them.
func TestStreamLargeTokens(t *testing.T) {
	long := strings.Repeat("x", 3*readBufferSize)
	data := []byte(`{"items":[{"metadata":{"name":"` + long + `","namespace":"n"},"note":"` + long + `\"",` +
		`"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}]}]}`)
	want, _, err := typedPods(data)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]io.Reader{"at once": bytes.NewReader(data), "in 4 KiB chunks": &chunkReader{data: data, size: 4 << 10}} {
		var p collectors.Problems
		got, err := DecodePods(r, &p)
		if err != nil || !reflect.DeepEqual(got, want) || len(got) != 1 || got[0].Pod.Name != long {
			t.Errorf("%s: %d samples, error %v; want the one pod named with %d x", name, len(got), err, len(long))
		}
	}
}

// TestStreamReadError: an error reading the body (not the end of it)
// fails the decode and is kept in the error.
func TestStreamReadError(t *testing.T) {
	broken := errors.New("connection reset")
	data := realisticPods(100)
	for _, cut := range []int{0, 1, len(data) / 2, len(data) - 1} {
		r := io.MultiReader(bytes.NewReader(data[:cut]), iotest.ErrReader(broken))
		var p collectors.Problems
		if _, err := DecodePods(r, &p); !errors.Is(err, broken) {
			t.Errorf("cut at %d: error %v, want it to wrap %v", cut, err, broken)
		}
	}
}

// TestStreamReadsInLargeChunks: the body is read readBufferSize bytes at a
// time: a body of n bytes takes ceil(n / readBufferSize) reads, plus the
// one that returns io.EOF (over HTTP/2 each Read may send a WINDOW_UPDATE).
func TestStreamReadsInLargeChunks(t *testing.T) {
	data := realisticPods(5000) // about 1 MB
	body := &countingReader{r: bytes.NewReader(data)}
	var p collectors.Problems
	if _, err := DecodePods(body, &p); err != nil {
		t.Fatal(err)
	}
	if want := (len(data)+readBufferSize-1)/readBufferSize + 1; body.reads > want || len(data) < 2*readBufferSize {
		t.Errorf("%d reads of a %d-byte body, want at most %d", body.reads, len(data), want)
	}
}

// FuzzDecodeChunks: reading the body in chunks of any size gives exactly
// what reading it at once gives (samples, problems and error texts), for
// pods and nodes, repeated "items" keys included.
func FuzzDecodeChunks(f *testing.F) {
	f.Add([]byte(oddPods), uint8(3))
	f.Add(realisticPods(5), uint8(1))
	for i, seed := range trickySeeds() {
		f.Add(seed, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		if hugeExponent.Match(data) {
			t.Skip()
		}
		want := decodeBoth(data, whole)
		got := decodeBoth(data, func(d []byte) io.Reader { return &chunkReader{data: d, size: int(size)%64 + 1} })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("in chunks of %d: %v, want %v", int(size)%64+1, got, want)
		}
	})
}

// TestDecodePodsAllocations: decoding allocates the pod names and little
// else: one allocation per sample (its name; namespaces and timestamps
// are shared) plus at most 200 for the buffers, the sample slice's growth
// and the distinct timestamps and windows. realisticPods(3000) has 3000 -
// 31 = 2,969 pods with containers (every 97th has none) and 100 distinct
// timestamps.
func TestDecodePodsAllocations(t *testing.T) {
	data := realisticPods(3000)
	samples := 0
	allocs := testing.AllocsPerRun(5, func() {
		var p collectors.Problems
		out, err := DecodePods(bytes.NewReader(data), &p)
		if err != nil {
			t.Fatal(err)
		}
		samples = len(out)
	})
	if samples != 2969 || allocs > float64(samples+200) {
		t.Errorf("%d samples, %.0f allocations; want 2969 samples and at most %d allocations", samples, allocs, samples+200)
	}
}
