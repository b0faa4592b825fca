package metricsserver

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The scanner's tokens (see scan.go): a string token is checked for
// control bytes and escapes as it is found and unescaped only when a
// decoder reads it (unquote); a number token is the run of bytes numbers
// are made of, then checked against the JSON grammar; a literal is
// compared byte by byte. Every token is whole in the buffer when it is
// handed out.

// Flags of a string token (scanString).
const (
	// strEscaped marks a string with a backslash escape.
	strEscaped = 1 << iota
	// strNonASCII marks a string with bytes of 0x80 and above.
	strNonASCII
)

// Byte classes, read-only lookup tables filled once by init.
var (
	// plainByte holds the bytes that stand for themselves in a string:
	// printable ASCII but the quote and the backslash.
	plainByte [256]bool
	// numberByte holds the bytes a number token can contain.
	numberByte [256]bool
	// spaceByte holds JSON whitespace.
	spaceByte = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}
)

// init fills plainByte and numberByte.
func init() {
	for c := ' '; c < utf8.RuneSelf; c++ {
		plainByte[c] = c != '"' && c != '\\'
	}
	for _, c := range []byte("0123456789+-.eE") {
		numberByte[c] = true
	}
}

// scanString reads the string token at pos (a quote) and returns it with
// its quotes, and its flags.
func (s *scanner) scanString() (raw []byte, flags int, err error) {
	i := s.pos + 1
	for {
		for i < s.end && plainByte[s.buf[i]] {
			i++
		}
		if i >= s.end {
			shift, ok := s.more()
			if i -= shift; !ok {
				return nil, 0, s.syntaxError(i, "in a string")
			}
			continue
		}
		switch c := s.buf[i]; {
		case c == '"':
			raw, s.pos = s.buf[s.pos:i+1], i+1
			return raw, flags, nil
		case c == '\\':
			flags |= strEscaped
			if i, err = s.escape(i); err != nil {
				return nil, 0, err
			}
		case c < ' ':
			return nil, 0, s.syntaxError(i, "in a string")
		default:
			flags |= strNonASCII
			i++
		}
	}
}

// escape checks the escape sequence at buf[i] (a backslash) and returns
// the index after it.
func (s *scanner) escape(i int) (int, error) {
	i, ok := s.need(i, 2)
	if !ok {
		return i, s.syntaxError(s.end, "in a string escape")
	}
	switch s.buf[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, nil
	case 'u':
		if i, ok = s.need(i, 6); !ok {
			return i, s.syntaxError(s.end, "in a \\u escape")
		}
		for j := i + 2; j < i+6; j++ {
			if c := s.buf[j] | 0x20; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return i, s.syntaxError(j, "in a \\u escape")
			}
		}
		return i + 6, nil
	}
	return i, s.syntaxError(i+1, "in a string escape")
}

// unquote appends the contents of the string token raw to dst as
// encoding/json decodes them: escapes replaced, and each byte that is not
// UTF-8 replaced by U+FFFD.
func unquote(dst, raw []byte, flags int) ([]byte, error) {
	contents := raw[1 : len(raw)-1]
	if flags&strEscaped == 0 && (flags&strNonASCII == 0 || utf8.Valid(contents)) {
		return append(dst, contents...), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return dst, err
	}
	return append(dst, s...), nil
}

// scanNumber reads the number token at pos.
func (s *scanner) scanNumber() ([]byte, error) {
	i := s.pos
	for {
		for i < s.end && numberByte[s.buf[i]] {
			i++
		}
		if i < s.end {
			break
		}
		shift, ok := s.more()
		if i -= shift; !ok {
			break // the end of the input ends the number
		}
	}
	raw := s.buf[s.pos:i]
	if !validNumber(raw) {
		return nil, fmt.Errorf("invalid number %q at offset %d", raw, s.offset+int64(s.pos))
	}
	s.pos = i
	return raw, nil
}

// validNumber reports whether b is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(b []byte) bool {
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(i + 1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(i); j > i {
			i = j
		} else {
			return false
		}
	}
	return i == len(b)
}

// literal reads the literal word (true, false or null) at pos.
func (s *scanner) literal(word string) error {
	i, ok := s.need(s.pos, len(word))
	s.pos = i
	if !ok {
		return s.syntaxError(s.end, "in a literal")
	}
	for j := range len(word) {
		if s.buf[i+j] != word[j] {
			return s.syntaxError(i+j, "in a literal")
		}
	}
	s.pos += len(word)
	return nil
}

// scalar reads the string, number or literal at pos, whose first byte is
// c, and returns its raw bytes; opened is true instead when c opens an
// array or object, which is consumed and left to the caller.
func (s *scanner) scalar(c byte) (raw []byte, opened bool, err error) {
	switch {
	case c == '"':
		raw, _, err = s.scanString()
		return raw, false, err
	case c == '-' || c >= '0' && c <= '9':
		raw, err = s.scanNumber()
		return raw, false, err
	case c == '{' || c == '[':
		s.pos++
		return nil, true, nil
	}
	var word string
	switch c {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	case 'n':
		word = "null"
	default:
		return nil, false, s.syntaxError(s.pos, "looking for the beginning of a value")
	}
	if err := s.literal(word); err != nil {
		return nil, false, err
	}
	return s.buf[s.pos-len(word) : s.pos], false, nil
}
