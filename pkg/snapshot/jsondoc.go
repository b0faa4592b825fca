package snapshot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// jsonDoc reads one top-level JSON object with the json.Decoder token API,
// so that a List is never held whole:
//
//   - A field other than "items" is kept as raw JSON, unless the object is
//     already known to be a List (then it is skipped).
//   - "items" of an object whose kind is already known to end in "List" is
//     decoded item by item, each item handed to loadItem and dropped.
//   - "items" before "kind" (kubectl -o json sorts keys: apiVersion, items,
//     kind, metadata) is loaded speculatively into a separate loadState,
//     merged when kind turns out to be a List and discarded otherwise (no
//     supported kind has a top-level "items" field, so the object decodes
//     the same without it). Items without a kind (a typed list's, which
//     take the list's apiVersion and kind) are kept raw until the list's
//     header is known, together with every later item to keep the order.
//   - Any other object is rebuilt from its raw fields and loaded whole.
//
// WriteJSON writes apiVersion and kind first, so its lists take the direct
// path. Once the first item has been handed on, the document can no longer
// be re-read as YAML (commit).
type jsonDoc struct {
	l         *loader
	where     string
	dec       *json.Decoder
	commit    func()
	committed bool

	apiVersion, kind         string
	haveAPIVersion, haveKind bool
	// duplicate names a header field given twice.
	duplicate string
	fields    []rawField
	// raw is the current item (its buffer is reused).
	raw json.RawMessage
	// spec is the state speculative items go to; specErr the first error
	// of one (reported only if the document is a List).
	spec     *loadState
	specErr  error
	buffered []bufferedItem
	items    bool
	// itemsNotList: "items" was neither a list nor null.
	itemsNotList bool
}

type rawField struct {
	key   string
	value json.RawMessage
}

type bufferedItem struct {
	index int
	raw   json.RawMessage
}

func isList(kind string) bool { return strings.HasSuffix(kind, "List") }

func (d *jsonDoc) knownList() bool { return d.haveKind && isList(d.kind) }

func (d *jsonDoc) read() error {
	if tok, err := d.dec.Token(); err != nil || tok != json.Delim('{') {
		if err != nil {
			return d.wrap(err)
		}
		return fmt.Errorf("%s: not an object", d.where)
	}
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.wrap(err)
		}
		key, _ := tok.(string) // object keys are strings
		if err := d.field(key); err != nil {
			return err
		}
	}
	if _, err := d.dec.Token(); err != nil { // '}'
		return d.wrap(err)
	}
	return d.finish()
}

// wrap prefixes a decoder error with the document (it stays a
// *json.SyntaxError for errors.As).
func (d *jsonDoc) wrap(err error) error { return fmt.Errorf("%s: %w", d.where, err) }

func (d *jsonDoc) field(key string) error {
	switch {
	case key == "items" && (d.knownList() || !d.haveKind):
		if d.items {
			return fmt.Errorf("%s: duplicate field %q", d.where, key)
		}
		d.items = true
		return d.readItems()
	case d.knownList() && key != "apiVersion" && key != "kind":
		return d.skipValue()
	}
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return d.wrap(err)
	}
	d.fields = append(d.fields, rawField{key: key, value: raw})
	if key != "apiVersion" && key != "kind" {
		return nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("%s: %s: %w", d.where, key, err)
	}
	seen := &d.haveKind
	if key == "kind" {
		d.kind = v
	} else {
		d.apiVersion, seen = v, &d.haveAPIVersion
	}
	if *seen {
		d.duplicate = key
	}
	*seen = true
	return nil
}

// skipValue consumes the next value without keeping it.
func (d *jsonDoc) skipValue() error {
	if err := d.dec.Decode(&d.raw); err != nil {
		return d.wrap(err)
	}
	return nil
}

// readItems reads the "items" value: a list (streamed), null, or anything
// else (an error for a List; for an object of another kind a field that
// no supported kind has).
func (d *jsonDoc) readItems() error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.wrap(err)
	}
	if tok != json.Delim('[') {
		if err := d.skipRest(tok); err != nil {
			return err
		}
		if d.itemsNotList = tok != nil; d.knownList() && d.itemsNotList {
			return fmt.Errorf("%s: items must be a list", d.where)
		}
		d.fields = append(d.fields, rawField{key: "items", value: json.RawMessage("null")})
		return nil
	}
	d.committed = true
	d.commit()
	st := d.l.st
	if !d.haveKind {
		d.spec = newState()
		d.l.st = d.spec
		defer func() { d.l.st = st }()
	}
	for i := 1; d.dec.More(); i++ {
		if err := d.dec.Decode(&d.raw); err != nil {
			return fmt.Errorf("%s, item %d: %w", d.where, i, err)
		}
		if err := d.item(i); err != nil {
			if d.spec == nil {
				return err
			}
			d.specErr = err
		}
	}
	if _, err := d.dec.Token(); err != nil { // ']'
		return d.wrap(err)
	}
	d.fields = append(d.fields, rawField{key: "items", value: json.RawMessage("[]")})
	return nil
}

// item loads or buffers the current item.
func (d *jsonDoc) item(i int) error {
	if d.specErr != nil {
		return nil // the speculation failed already; only read on
	}
	defaults, known := d.defaults()
	if !known && d.buffered == nil {
		if _, kind, err := typeMeta(d.raw); err == nil && kind != "" {
			return d.l.loadItem(place{doc: d.where, item: i}, d.raw, nil)
		}
	}
	if !known || d.buffered != nil {
		d.buffered = append(d.buffered, bufferedItem{index: i, raw: slices.Clone(d.raw)})
		return nil
	}
	return d.l.loadItem(place{doc: d.where, item: i}, d.raw, defaults)
}

// defaults returns the apiVersion and kind of items of a typed list, and
// whether they are known yet.
func (d *jsonDoc) defaults() (*schema.GroupVersionKind, bool) {
	switch {
	case !d.haveKind:
		return nil, false
	case d.kind == "List":
		return nil, true
	case !d.haveAPIVersion:
		return nil, false
	}
	gvk := schema.FromAPIVersionAndKind(d.apiVersion, strings.TrimSuffix(d.kind, "List"))
	return &gvk, true
}

// skipRest consumes the rest of a value whose first token was tok.
func (d *jsonDoc) skipRest(tok json.Token) error {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := d.dec.Token()
		if err != nil {
			return d.wrap(err)
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// finish loads what was kept once the whole object has been read.
func (d *jsonDoc) finish() error {
	if d.duplicate != "" && (d.knownList() || d.items) {
		// Which kind the items were read for would be a guess.
		return fmt.Errorf("%s: duplicate field %q", d.where, d.duplicate)
	}
	if !d.knownList() {
		return d.l.loadItem(place{doc: d.where}, d.rebuild(), nil)
	}
	if d.itemsNotList {
		return fmt.Errorf("%s: items must be a list", d.where)
	}
	if d.specErr != nil {
		return d.specErr
	}
	if d.spec != nil {
		d.l.st.merge(d.spec)
	}
	defaults, _ := d.defaults()
	for _, b := range d.buffered {
		if err := d.l.loadItem(place{doc: d.where, item: b.index}, b.raw, defaults); err != nil {
			return err
		}
	}
	return nil
}

// rebuild writes the kept fields back into one JSON object, in their order
// and with duplicates, so that decoding it finds what decoding the
// original would.
func (d *jsonDoc) rebuild() []byte {
	n := 2
	for _, f := range d.fields {
		n += len(f.key) + len(f.value) + 8
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, f := range d.fields {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendJSONString(out, f.key)
		out = append(out, ':')
		out = append(out, f.value...)
	}
	return append(out, '}')
}
