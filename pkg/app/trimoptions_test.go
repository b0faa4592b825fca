package app

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTrimOptions: the example policies (PodLifeTime by age only) keep
// only the Ready condition; a PodLifeTime conditions filter, even in a
// profile where it is not enabled, keeps them all. Every policy drops the
// container states' times.
func TestTrimOptions(t *testing.T) {
	withConditions := filepath.Join(t.TempDir(), "conditions.yaml")
	if err := os.WriteFile(withConditions, []byte(`apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: a
    pluginConfig:
      - name: PodLifeTime
        args:
          conditions: [{type: PodScheduled, status: "False"}]
    plugins:
      deschedule:
        enabled: []
`), 0o600); err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join("..", "..", "deploy", "examples")
	for _, tc := range []struct {
		file      string
		readyOnly bool
	}{
		{filepath.Join(examples, "all-strategies.yaml"), true},
		{filepath.Join(examples, "all-strategies-usage.yaml"), true},
		{withConditions, false},
	} {
		policy, _, err := loadPolicy(tc.file)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		got := trimOptions(policy)
		if got.OnlyReadyCondition != tc.readyOnly {
			t.Errorf("%s: OnlyReadyCondition %t, want %t", filepath.Base(tc.file), got.OnlyReadyCondition, tc.readyOnly)
		}
		if !got.DropContainerTimes {
			t.Errorf("%s: DropContainerTimes false, want true (no policy reads them)", filepath.Base(tc.file))
		}
	}
}
