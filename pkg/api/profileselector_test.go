package api

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
)

// A profile's nodeSelector is a label selector string or an object; both
// select the same nodes and survive a JSON round trip in their form.
func TestProfileNodeSelectorForms(t *testing.T) {
	reg := testRegistry(t)
	batch := labels.Set{"pool": "batch", "zone": "a"}
	general := labels.Set{"pool": "general", "zone": "a"}
	for _, form := range []string{
		`"pool=batch,zone in (a,b)"`,
		`{matchLabels: {pool: batch}, matchExpressions: [{key: zone, operator: In, values: [a, b]}]}`,
	} {
		p, err := Load([]byte(`{profiles: [{name: batch, nodeSelector: `+form+`}]}`), reg)
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		ns := p.Profiles[0].NodeSelector
		sel, err := ns.Selector()
		if err != nil {
			t.Fatal(err)
		}
		if !sel.Matches(batch) || sel.Matches(general) {
			t.Errorf("%s: selector %s, want pool=batch in zone a or b", form, sel)
		}
		data, err := json.Marshal(p.Profiles[0])
		if err != nil {
			t.Fatal(err)
		}
		var back DeschedulerProfile
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if (back.NodeSelector.Object == nil) != (ns.Object == nil) || back.NodeSelector.String() != ns.String() {
			t.Errorf("%s: round trip %s gave %+v", form, data, back.NodeSelector)
		}
	}
	p, err := Load([]byte(`{profiles: [{name: all}]}`), reg)
	if err != nil || p.Profiles[0].NodeSelector != nil {
		t.Errorf("no nodeSelector: %+v, %v; want nil", p.Profiles[0].NodeSelector, err)
	}
}

// Every problem of a profile's nodeSelector is reported at its path.
func TestProfileNodeSelectorErrors(t *testing.T) {
	reg := testRegistry(t)
	_, err := Load([]byte(`{profiles: [
  {name: a, nodeSelector: "pool in batch"},
  {name: b, nodeSelector: {matchLabel: {pool: batch}}},
  {name: c, nodeSelector: {matchExpressions: [{key: pool, operator: Within, values: [batch]}]}},
  {name: d, nodeSelector: {matchExpressions: [{key: pool, operator: Exists, values: [batch]}]}}]}`), reg)
	got := validationErrors(t, err)
	// Unknown fields are found while decoding, before validation.
	want := []string{
		`profiles[1].nodeSelector.matchLabel: Forbidden: unknown field "matchLabel", did you mean "matchLabels"?`,
		`profiles[0].nodeSelector: Invalid value: "pool in batch": unable to parse requirement`,
		`profiles[2].nodeSelector.matchExpressions[0].operator: Invalid value: "Within": not a valid selector operator`,
		`profiles[3].nodeSelector.matchExpressions[0].values: Forbidden: may not be specified when ` + "`operator`" + ` is 'Exists' or 'DoesNotExist'`,
	}
	if len(got) != len(want) {
		t.Fatalf("errors:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
	_, err = Load([]byte(`{profiles: [{name: a, nodeSelector: 3}]}`), reg)
	var verr *ValidationError
	if !errors.As(err, &verr) || !strings.Contains(verr.Error(),
		`profiles[0].nodeSelector: must be a label selector string or an object with matchLabels and matchExpressions, got number 3`) {
		t.Errorf("a number: %v", err)
	}
}
