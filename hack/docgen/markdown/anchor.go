// Package markdown holds what the generated references and the
// documentation checks agree on about GitHub-flavoured Markdown.
package markdown

import (
	"strings"
	"unicode"
)

// Anchor is the anchor GitHub gives a heading: lower case, spaces become
// '-', letters, digits, '-' and '_' stay, other punctuation is dropped.
// A repeated heading's anchor gets -1, -2, ... (not handled here).
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
