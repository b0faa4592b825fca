package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzLoad checks that Load never panics and that a policy that loads
// re-marshals (as JSON) and re-loads to an equal policy: same JSON content
// and the same decoded args. Seeds: testdata/policies plus a few inline
// policies.
func FuzzLoad(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "policies", "*"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed policies: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("profiles: [{name: p, plugins: {balance: {enabled: [HighNodeUtilization]}}}]"))
	f.Add([]byte("apiVersion: descheduler/v1alpha1\nstrategies: {RemoveDuplicates: {enabled: true}}"))
	f.Add([]byte(`{"apiVersion":"descheduler/v1alpha2","nodeSelector":"a=b","gracePeriodSeconds":0}`))
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Load(data, reg)
		if err != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal loaded policy: %v", err)
		}
		p2, err := Load(out, reg)
		if err != nil {
			t.Fatalf("re-loading the marshalled policy failed: %v\n%s", err, out)
		}
		assertSamePolicy(t, p, p2)
	})
}

// assertSamePolicy compares two loaded policies by their JSON content
// (parsed, so formatting and number spelling do not matter) and their
// decoded args.
func assertSamePolicy(t *testing.T, a, b *DeschedulerPolicy) {
	t.Helper()
	ja, jb := jsonValue(t, a), jsonValue(t, b)
	if !reflect.DeepEqual(ja, jb) {
		t.Fatalf("policies differ after a round trip:\n%v\n%v", ja, jb)
	}
	for i := range a.Profiles {
		for j, pc := range a.Profiles[i].PluginConfig {
			if other := b.Profiles[i].PluginConfig[j].Decoded; !reflect.DeepEqual(pc.Decoded, other) {
				t.Fatalf("profiles[%d].pluginConfig[%d] decoded args differ: %+v vs %+v", i, j, pc.Decoded, other)
			}
		}
	}
}

// jsonValue marshals v and parses it back into plain values.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
