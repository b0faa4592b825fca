package metricsserver

import (
	"errors"
	"fmt"
	"io"
)

// The scanner is a single-pass JSON tokenizer over a response body, the
// base of the list decoders (items.go). It reads the body into one large
// buffer (readBufferSize, so an HTTP/2 body is read in big chunks: each
// Read may send a WINDOW_UPDATE frame) and hands out one token at a time:
// the next non-space byte (peek), a whole string or number token as a
// slice of the buffer, a literal. A token is always whole in the buffer:
// when the unread bytes run out inside one, the unread tail is moved to the
// front of the buffer and more is read behind it (the buffer doubles only
// for a token larger than itself), so what stays resident is the buffer
// and the largest token, never the list. A slice handed out is valid until
// the next read.
//
// Values the decoders do not read are skipped by skipValue, which checks
// their syntax as it goes: containers are tracked on a stack of their
// closing bytes (reused from value to value), so nesting costs no
// recursion; the nesting limit is encoding/json's (maxDepth, counted from
// the list object). Strings are checked for control bytes and escapes
// (\" \\ \/ \b \f \n \r \t and \u with four hex digits), numbers against
// the JSON grammar, literals byte by byte. Anything else is an error, as it
// is for the typed decode of the whole list.

// readBufferSize is the size of the read buffer: the body is read up to
// this much at a time.
const readBufferSize = 256 << 10

// maxDepth is encoding/json's nesting limit: at most this many arrays and
// objects open at once.
const maxDepth = 10000

// errTooDeep is returned for input nested deeper than maxDepth.
var errTooDeep = errors.New("JSON nested too deeply")

// scanner reads JSON tokens from r through buf.
type scanner struct {
	r io.Reader
	// buf holds the input; buf[pos:end] is not read yet.
	buf      []byte
	pos, end int
	// err is the read error that ended the input (io.EOF at its end).
	err error
	// offset is the input offset of buf[0], for messages.
	offset int64
	// stack holds the opening bytes of the containers skipValue is in.
	stack []byte
	// key holds the last key read (readKey).
	key []byte
}

// newScanner returns a scanner reading r in chunks of readBufferSize.
func newScanner(r io.Reader) *scanner {
	return &scanner{r: r, buf: make([]byte, readBufferSize)}
}

// more reads more input behind the unread bytes, first moving them to the
// front of the buffer (or doubling it when they fill it). It returns how
// far the unread bytes moved (an index into them decreases by shift), and
// false at the end of the input.
func (s *scanner) more() (shift int, ok bool) {
	if s.err != nil {
		return 0, false
	}
	if s.pos > 0 {
		shift = s.pos
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.offset += int64(shift)
		s.pos = 0
	}
	if s.end == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for range 100 { // an io.Reader may return 0, nil now and then
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.err = err
		}
		if n > 0 {
			return shift, true
		}
		if err != nil {
			return shift, false
		}
	}
	s.err = io.ErrNoProgress
	return shift, false
}

// need makes buf[i:i+n] available and returns i moved as more moved it;
// ok is false when the input ends first.
func (s *scanner) need(i, n int) (int, bool) {
	for s.end-i < n {
		shift, ok := s.more()
		i -= shift
		if !ok {
			return i, false
		}
	}
	return i, true
}

// syntaxError describes the byte at buf[i], or the end of the input when
// i is past the end; context says what was being read.
func (s *scanner) syntaxError(i int, context string) error {
	if i >= s.end {
		if s.err != nil && !errors.Is(s.err, io.EOF) {
			return fmt.Errorf("reading the response: %w", s.err)
		}
		return fmt.Errorf("%s: %w", context, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("invalid character %q %s at offset %d", s.buf[i], context, s.offset+int64(i))
}

// peek skips whitespace and returns the next byte without consuming it;
// ok is false at the end of the input.
func (s *scanner) peek() (c byte, ok bool) {
	for {
		for s.pos < s.end && spaceByte[s.buf[s.pos]] {
			s.pos++
		}
		if s.pos < s.end {
			return s.buf[s.pos], true
		}
		if _, ok := s.more(); !ok {
			return 0, false
		}
	}
}

// expect consumes the next non-space byte, which must be want.
func (s *scanner) expect(want byte, context string) error {
	if c, ok := s.peek(); !ok || c != want {
		return s.syntaxError(s.pos, context)
	}
	s.pos++
	return nil
}

// first is called after an opening byte: it consumes the matching closing
// byte and returns false if the container is empty, true otherwise.
func (s *scanner) first(closing byte) (bool, error) {
	c, ok := s.peek()
	if !ok {
		return false, s.syntaxError(s.pos, "after an opening bracket")
	}
	if c == closing {
		s.pos++
		return false, nil
	}
	return true, nil
}

// next is called after a member of a container: it consumes a comma and
// returns true, or consumes the closing byte and returns false.
func (s *scanner) next(closing byte) (bool, error) {
	c, ok := s.peek()
	switch {
	case ok && c == ',':
		s.pos++
		return true, nil
	case ok && c == closing:
		s.pos++
		return false, nil
	}
	return false, s.syntaxError(s.pos, "after a value")
}

// readKey reads an object key and its colon into s.key, unescaped.
func (s *scanner) readKey() ([]byte, error) {
	if c, ok := s.peek(); !ok || c != '"' {
		return nil, s.syntaxError(s.pos, "looking for an object key")
	}
	raw, flags, err := s.scanString()
	if err != nil {
		return nil, err
	}
	if s.key, err = unquote(s.key[:0], raw, flags); err != nil {
		return nil, err
	}
	return s.key, s.expect(':', "after an object key")
}

// skipValue reads past the value at pos, checking its syntax; depth is the
// number of arrays and objects it is in.
func (s *scanner) skipValue(depth int) error {
	stack := s.stack[:0]
	defer func() { s.stack = stack }()
	for {
		c, ok := s.peek()
		if !ok {
			return s.syntaxError(s.pos, "looking for the beginning of a value")
		}
		_, opened, err := s.scalar(c)
		if err != nil {
			return err
		}
		if opened {
			if depth+len(stack)+1 > maxDepth {
				return errTooDeep
			}
			closing := byte(']')
			if c == '{' {
				closing = '}'
			}
			if stack = append(stack, closing); c == '{' {
				if nonEmpty, err := s.first('}'); err != nil || nonEmpty {
					if err == nil {
						err = s.skipKey()
					}
					if err != nil {
						return err
					}
					continue // the first member's value
				}
			} else if nonEmpty, err := s.first(']'); err != nil {
				return err
			} else if nonEmpty {
				continue
			}
			stack = stack[:len(stack)-1] // closed at once
		}
		// After a value: close the containers it ends, then go on with
		// the next member.
		for ; len(stack) > 0; stack = stack[:len(stack)-1] {
			more, err := s.next(stack[len(stack)-1])
			if err != nil {
				return err
			}
			if more {
				break
			}
		}
		if len(stack) == 0 {
			return nil
		}
		if stack[len(stack)-1] == '}' {
			if err := s.skipKey(); err != nil {
				return err
			}
		}
	}
}

// skipKey reads past an object key and its colon.
func (s *scanner) skipKey() error {
	if c, ok := s.peek(); !ok || c != '"' {
		return s.syntaxError(s.pos, "looking for an object key")
	}
	if _, _, err := s.scanString(); err != nil {
		return err
	}
	return s.expect(':', "after an object key")
}
