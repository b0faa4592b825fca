package snapshot

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	jsonN1 = `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"}}`
	jsonP1 = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}}`
)

func TestLoadFilesJSONStreams(t *testing.T) {
	tests := []struct {
		name         string
		content      string
		want         []string
		wantWarnings []string
	}{
		{
			name:    "concatenated objects",
			content: jsonN1 + jsonP1 + "\n" + strings.Replace(jsonN1, "n1", "n2", 1),
			want:    []string{"Node n1", "Node n2", "Pod ns/p1"},
		},
		{
			name:    "separated by --- lines, with comments and blank lines",
			content: "\n---\n" + jsonN1 + "\n--- # next\n\n" + jsonP1 + "\n---\n",
			want:    []string{"Node n1", "Pod ns/p1"},
		},
		{
			name:    "JSON then YAML documents",
			content: jsonN1 + "\n---\n" + podP1 + "---\n" + strings.Replace(jsonN1, "n1", "n2", 1),
			want:    []string{"Node n1", "Node n2", "Pod ns/p1"},
		},
		{
			name:    "YAML flow mapping with JSON keys is re-read as YAML",
			content: `{"apiVersion": v1, "kind": Node, "metadata": {"name": n1}}` + "\n---\n" + jsonP1,
			want:    []string{"Node n1", "Pod ns/p1"},
		},
		{
			name: "kubectl -o json order: items before kind",
			content: `{"apiVersion":"v1","items":[` + jsonP1 + `,` + jsonN1 + `,{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"d"}}` +
				`],"kind":"List","metadata":{"resourceVersion":""}}`,
			want:         []string{"Node n1", "Pod ns/p1"},
			wantWarnings: []string{"skipped 1 object of kind apps/v1 ControllerRevision"},
		},
		{
			name: "typed list with kind last: items without kind wait for it and keep their order",
			content: `{"apiVersion":"v1","items":[` +
				`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p1","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}},` +
				`{"metadata":{"name":"p2","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}},` +
				`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p3","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}}` +
				`],"kind":"PodList"}`,
			want: []string{"Pod ns/p1", "Pod ns/p2", "Pod ns/p3"},
		},
		{
			name: "typed list with apiVersion last",
			content: `{"kind":"PodList","items":[{"metadata":{"name":"p2","namespace":"ns"},"spec":{"containers":[{"name":"c"}]}}],` +
				`"apiVersion":"v1"}`,
			want: []string{"Pod ns/p2"},
		},
		{
			name: "an object with an items field before its kind is not a list",
			content: `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"ghost"}},` +
				`{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"d"}},` +
				`{"apiVersion":"v1","kind":"Pod","metadata":{"name":7}}],"kind":"Node","metadata":{"name":"n1"}}`,
			want: []string{"Node n1"},
		},
		{
			name:    "items null and empty lists",
			content: `{"apiVersion":"v1","kind":"List","items":null}{"apiVersion":"v1","items":[],"kind":"List"}`,
		},
		{
			name:    "list header fields after items are ignored",
			content: `{"apiVersion":"v1","kind":"List","items":[` + jsonN1 + `],"metadata":{"continue":"x"},"extra":[1,{"a":2}]}`,
			want:    []string{"Node n1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"c.json": tt.content})
			objs, warnings, err := LoadFiles([]string{filepath.Join(dir, "c.json")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := inventory(objs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("objects = %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(warnings, tt.wantWarnings) {
				t.Errorf("warnings = %q, want %q", warnings, tt.wantWarnings)
			}
		})
	}
}

// TestLoadFilesSpeculativeItemsMergeInOrder: items loaded before the
// document is known to be a List go after what earlier documents loaded,
// so a duplicate time keeps the earlier document's sample.
func TestLoadFilesSpeculativeItemsMergeInOrder(t *testing.T) {
	first := `{"apiVersion":"descheduler.usage.io/v1alpha1","kind":"NodeUsageSeries","metadata":{"name":"n1"},` +
		`"start":"2026-01-01T11:50:00Z","interval":"1m","cpu":[1],"memory":[10]}`
	metrics := func(ts string, cpu int) string {
		return fmt.Sprintf(`{"apiVersion":"metrics.k8s.io/v1beta1","kind":"NodeMetrics","metadata":{"name":"n1"},`+
			`"timestamp":%q,"usage":{"cpu":"%dm","memory":"%d"}}`, ts, cpu, cpu*10)
	}
	second := `{"apiVersion":"v1","items":[` + metrics("2026-01-01T11:50:00Z", 99) + "," +
		metrics("2026-01-01T11:51:00Z", 2) + `],"kind":"List"}`
	objs := loadString(t, first+"\n"+second)
	want := Series{{Time: t50, MilliCPU: 1, Memory: 10}, {Time: t50.Add(time.Minute), MilliCPU: 2, Memory: 20}}
	if got := utcSeries(objs.NodeMetrics)["n1"]; !reflect.DeepEqual(got, want) {
		t.Errorf("series = %v, want %v", got, want)
	}
}

func TestLoadFilesJSONErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{
			name:    "syntax error inside an item names the item",
			content: `{"apiVersion":"v1","kind":"List","items":[` + jsonN1 + `,{"a" 1}]}`,
			want:    []string{"c.json: document 1, item 2: invalid character '1' after object key"},
		},
		{
			name:    "broken JSON before any item is reported by the YAML parser",
			content: `{"apiVersion":"v1","kind":"Node" "metadata":{}}`,
			want:    []string{"c.json: document 1: ", "yaml"},
		},
		{
			name:    "bad item of a list whose kind comes last",
			content: `{"apiVersion":"v1","items":[` + jsonN1 + `,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns"},"spec":7}],"kind":"List"}`,
			want:    []string{"c.json: document 1, item 2 (Pod ns/p): spec: ", "cannot unmarshal number"},
		},
		{
			name:    "items of a List must be a list",
			content: `{"apiVersion":"v1","kind":"List","items":{"a":1}}`,
			want:    []string{"c.json: document 1: items must be a list"},
		},
		{
			name:    "items of a List must be a list, kind last",
			content: `{"apiVersion":"v1","items":{"a":[1]},"kind":"List"}`,
			want:    []string{"c.json: document 1: items must be a list"},
		},
		{
			name:    "a List's kind given twice",
			content: `{"apiVersion":"v1","kind":"List","kind":"PodList","items":[]}`,
			want:    []string{`c.json: document 1: duplicate field "kind"`},
		},
		{
			name:    "kind of the wrong type",
			content: `{"apiVersion":"v1","kind":5}`,
			want:    []string{"c.json: document 1: kind: ", "cannot unmarshal number"},
		},
		{
			name:    "documents are counted across a stream",
			content: jsonN1 + "\n---\n" + jsonP1 + "\n" + `{"apiVersion":"v1","kind":"Node","metadata":{}}`,
			want:    []string{"c.json: document 3 (Node): metadata.name is required"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"c.json": tt.content})
			_, _, err := LoadFiles([]string{filepath.Join(dir, "c.json")}, nil)
			if err == nil {
				t.Fatal("LoadFiles() succeeded, want an error")
			}
			assertInOrder(t, err.Error(), tt.want)
		})
	}
}

// listReader serves a JSON List of n Nodes item by item and then fails, as
// a truncated file or broken pipe would.
type listReader struct {
	n, next int
	buf     []byte
}

var errCut = fmt.Errorf("connection cut")

func (r *listReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		switch {
		case r.next == 0:
			r.buf = []byte(`{"apiVersion":"v1","kind":"List","items":[`)
		case r.next <= r.n:
			r.buf = fmt.Appendf(nil, `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n%d"}},`, r.next)
		default:
			return 0, errCut
		}
		r.next++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TestLoadFilesStreamsItems: a List is decoded item by item, so a stream
// that breaks after 20,000 items fails at item 20,001, instead of needing
// the whole document first.
func TestLoadFilesStreamsItems(t *testing.T) {
	r := &listReader{n: 20000}
	_, _, err := LoadFiles([]string{"-"}, r)
	if err == nil || !strings.Contains(err.Error(), "stdin: document 1, item 20001: connection cut") {
		t.Fatalf("error = %v, want it to name item 20001", err)
	}
	if _, err := r.Read(make([]byte, 1)); err != errCut {
		t.Errorf("the reader was not read to its end")
	}
}

// TestDocStreamPeek: skipToContent drops blank and separator lines but not
// the indentation of the first content line, and separatorLine matches what
// the YAML reader takes for a separator.
func TestDocStreamPeek(t *testing.T) {
	tests := []struct {
		in       string
		wantByte byte
		wantRest string
	}{
		{in: "\n\n  \t\n---\n--- # c\n---\t\n  a: 1\n", wantByte: 'a', wantRest: "  a: 1\n"},
		{in: "---x\n{}", wantByte: '-', wantRest: "---x\n{}"},
		{in: "----\n", wantByte: '-', wantRest: "----\n"},
		{in: "---#c\n{}", wantByte: '{', wantRest: "{}"},
		{in: "\r\n {\"a\":1}", wantByte: '{', wantRest: " {\"a\":1}"},
	}
	for _, tt := range tests {
		s := &docStream{r: bufioReader(tt.in)}
		c, err := s.skipToContent()
		if err != nil || c != tt.wantByte {
			t.Errorf("%q: skipToContent = %q, %v; want %q", tt.in, c, err, tt.wantByte)
			continue
		}
		if rest, _ := io.ReadAll(s); string(rest) != tt.wantRest {
			t.Errorf("%q: rest = %q, want %q", tt.in, rest, tt.wantRest)
		}
	}
	s := &docStream{r: bufioReader("\n---\n  \n")}
	if _, err := s.skipToContent(); err != io.EOF {
		t.Errorf("blank stream: err = %v, want io.EOF", err)
	}
}

func bufioReader(s string) *bufio.Reader {
	return bufio.NewReaderSize(strings.NewReader(s), readBufferSize)
}
