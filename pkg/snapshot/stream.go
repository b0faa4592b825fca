package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// readBufferSize is the read buffer of a snapshot file; it also bounds how
// far ahead the loader looks for the first byte of a document.
const readBufferSize = 1 << 16

// loadStream loads every document of one file. While documents start with
// "{" they are read as JSON straight from the stream (see loadJSON); from
// the first document that does not, the rest of the file is read by the
// YAML document reader, whose documents are converted to JSON one at a time.
func (l *loader) loadStream(name string, r io.Reader) error {
	s := &docStream{r: bufio.NewReaderSize(r, readBufferSize)}
	for doc := 1; ; doc++ {
		c, err := s.skipToContent()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: document %d: %w", name, doc, err)
		}
		if c == '{' {
			done, err := l.loadJSON(fmt.Sprintf("%s: document %d", name, doc), s)
			if err != nil {
				return err
			}
			if done {
				continue
			}
		}
		return l.loadYAMLDocuments(name, doc, s)
	}
}

// loadJSON reads one JSON document from s. done is false when the document
// turned out not to be JSON (a YAML flow mapping such as
// `{kind: Node, ...}`, or broken JSON) before any of its items was loaded:
// s is then rewound to the document's start for the YAML reader, which
// loads it or reports its error the way it reports errors in YAML.
func (l *loader) loadJSON(where string, s *docStream) (done bool, err error) {
	s.record()
	dec := json.NewDecoder(s)
	d := &jsonDoc{l: l, where: where, dec: dec, commit: s.stopRecording}
	if err := d.read(); err != nil {
		if !d.committed && isSyntaxError(err) {
			s.rewind()
			return false, nil
		}
		return true, err
	}
	s.stopRecording()
	rest, err := io.ReadAll(dec.Buffered())
	if err != nil {
		return true, fmt.Errorf("%s: %w", where, err)
	}
	s.unread(rest)
	return true, nil
}

func isSyntaxError(err error) bool {
	var syntax *json.SyntaxError
	return errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF)
}

// loadYAMLDocuments loads the rest of s as a YAML stream; its first
// document is document number first.
func (l *loader) loadYAMLDocuments(name string, first int, s *docStream) error {
	reader := utilyaml.NewYAMLReader(bufio.NewReaderSize(s, readBufferSize))
	for doc := first; ; doc++ {
		data, err := reader.Read()
		if err == io.EOF {
			return nil
		}
		where := fmt.Sprintf("%s: document %d", name, doc)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if err := l.loadDocument(where, data); err != nil {
			return err
		}
	}
}

// loadDocument loads one YAML (or JSON) document held in memory.
func (l *loader) loadDocument(where string, data []byte) error {
	data = bytes.TrimSpace(data)
	if !utilyaml.IsJSONBuffer(data) || !json.Valid(data) {
		var err error
		if data, err = yaml.YAMLToJSONStrict(data); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	if len(data) == 0 || string(data) == "null" {
		return nil // empty document or only comments
	}
	if data[0] != '{' {
		return fmt.Errorf("%s: not an object", where)
	}
	d := &jsonDoc{l: l, where: where, dec: json.NewDecoder(bytes.NewReader(data)), commit: func() {}}
	return d.read()
}

// docStream is a file's bytes with a push-back buffer, so that a JSON
// decoder's read-ahead can be handed on to whatever reads the next
// document, and with an optional recording of everything read since a
// document started, so that the document can be read again.
type docStream struct {
	r *bufio.Reader
	// pending are bytes put back, read before r.
	pending []byte
	// tape holds the bytes read while recording.
	tape      []byte
	recording bool
}

// Read implements io.Reader.
func (s *docStream) Read(p []byte) (int, error) {
	var n int
	var err error
	if len(s.pending) > 0 {
		n = copy(p, s.pending)
		s.pending = s.pending[n:]
	} else {
		n, err = s.r.Read(p)
	}
	if s.recording {
		s.tape = append(s.tape, p[:n]...)
	}
	return n, err
}

func (s *docStream) record() { s.recording, s.tape = true, s.tape[:0] }

func (s *docStream) stopRecording() { s.recording, s.tape = false, nil }

// rewind puts everything read since record back.
func (s *docStream) rewind() {
	tape := s.tape
	s.stopRecording()
	s.unread(tape)
}

// unread puts b in front of the bytes not read yet.
func (s *docStream) unread(b []byte) {
	if len(b) == 0 {
		return
	}
	s.pending = append(append(make([]byte, 0, len(b)+len(s.pending)), b...), s.pending...)
}

// peekAt returns the i-th byte not read yet. Past the read buffer it
// returns bufio.ErrBufferFull.
func (s *docStream) peekAt(i int) (byte, error) {
	if i < len(s.pending) {
		return s.pending[i], nil
	}
	j := i - len(s.pending)
	b, err := s.r.Peek(j + 1)
	if len(b) > j {
		return b[j], nil
	}
	return 0, err
}

// discard drops n bytes that peekAt has seen.
func (s *docStream) discard(n int) {
	k := min(n, len(s.pending))
	s.pending = s.pending[k:]
	_, _ = s.r.Discard(n - k) // peeked, so buffered: cannot fail
}

// skipToContent drops blank lines and "---" separator lines and returns the
// first byte of the next document without consuming its line (leading
// spaces matter in YAML), or io.EOF. A line too long to look at is left to
// the YAML reader (a byte other than '{' is returned).
func (s *docStream) skipToContent() (byte, error) {
	for {
		i := 0
		c, err := s.peekAt(i)
		for err == nil && (c == ' ' || c == '\t' || c == '\r') {
			i++
			c, err = s.peekAt(i)
		}
		switch {
		case err == io.EOF:
			s.discard(i)
			return 0, io.EOF
		case errors.Is(err, bufio.ErrBufferFull):
			return ' ', nil
		case err != nil:
			return 0, err
		case c == '\n':
			s.discard(i + 1)
			continue
		case c == '-' && i == 0:
			if n, ok := s.separatorLine(); ok {
				s.discard(n)
				continue
			}
		}
		return c, nil
	}
}

// separatorLine returns the length of the "---" line at the read position
// (with its newline), which the YAML reader too treats as a separator:
// "---" then only spaces or a comment.
func (s *docStream) separatorLine() (int, bool) {
	for i := range 3 {
		if c, err := s.peekAt(i); err != nil || c != '-' {
			return 0, false
		}
	}
	comment := false
	for i := 3; ; i++ {
		c, err := s.peekAt(i)
		switch {
		case err == io.EOF:
			return i, true
		case err != nil:
			return 0, false
		case c == '\n':
			return i + 1, true
		case c == '#':
			comment = true
		case !comment && c != ' ' && c != '\t' && c != '\r':
			return 0, false
		}
	}
}
