package api

import (
	"errors"
	"strings"
	"testing"
)

// onePolicy is a valid policy of one profile.
const onePolicy = `apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  plugins:
    deschedule: {enabled: [RemovePodsHavingTooManyRestarts]}
`

// TestLoadOneDocument: a policy file holds one YAML document. A second
// one, after "---" or after an end marker "...", is an error naming its
// line, even when the first document alone is valid; a marker followed
// by nothing but blanks and comments is not a document.
func TestLoadOneDocument(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		want   string // substring of the error; "" loads
	}{
		{name: "one document", policy: onePolicy},
		{name: "leading marker", policy: "---\n" + onePolicy},
		{name: "trailing marker", policy: onePolicy + "---\n"},
		{name: "trailing end marker", policy: onePolicy + "...\n"},
		{name: "trailing marker and a comment", policy: onePolicy + "---\n# nothing more\n\n"},
		// onePolicy has 6 lines: the marker is line 7.
		{name: "second document with bad fields", policy: onePolicy + "---\nnotAField: 1\n",
			want: "line 7: a policy file holds one YAML document, found a second one"},
		{name: "second policy", policy: onePolicy + "---\n" + onePolicy,
			want: "line 7: a policy file holds one YAML document, found a second one"},
		{name: "empty document, then another", policy: onePolicy + "---\n---\nprofiles: []\n",
			want: "line 8: a policy file holds one YAML document, found a second one"},
		{name: "content after an end marker", policy: onePolicy + "...\nprofiles: []\n",
			want: "a policy file holds one YAML document"},
	}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load([]byte(tc.policy), reg)
			if tc.want == "" {
				if err != nil || len(p.Profiles) != 1 {
					t.Fatalf("Load = %v, %v; want the one profile", p, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load succeeded, want an error containing %q", tc.want)
			}
			var verr *ValidationError
			if errors.As(err, &verr) {
				t.Errorf("want a decoding error, got *ValidationError: %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}
