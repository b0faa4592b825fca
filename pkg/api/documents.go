package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// oneDocument checks that YAML input holds at most one document: the
// decoder reads only the first, so anything after a "---" (or after a "..."
// end marker) would otherwise be dropped without a word. A marker followed
// only by blanks and comments is no document. A syntax error in the first
// document is left to the decoder, which reports it with its own words.
func oneDocument(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for i := 0; ; i++ {
		var doc yaml.Node
		err := dec.Decode(&doc)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil && i == 0:
			return nil
		case err != nil:
			return fmt.Errorf("decoding policy: a policy file holds one YAML document, found more after the first: %w", err)
		case i > 0 && !emptyDocument(&doc):
			return fmt.Errorf("decoding policy: line %d: a policy file holds one YAML document, found a second one; "+
				"remove it or put it in a file of its own", doc.Line)
		}
	}
}

// emptyDocument reports whether doc holds no value: a "---" followed by
// nothing, or by comments only.
func emptyDocument(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	c := doc.Content[0]
	return len(doc.Content) == 1 && c.Kind == yaml.ScalarNode && c.Tag == "!!null" && c.Value == ""
}
