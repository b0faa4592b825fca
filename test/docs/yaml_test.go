package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/api"
	"github.com/usage-descheduler/descheduler/pkg/framework"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/strategies"
)

// TestYAMLBlocksValidate: every yaml block of the documentation is either
// a policy that loads (decoding, defaults and validation, as `descheduler
// validate` does) or objects a snapshot file may hold, loaded without a
// warning. A block that is neither fails: a fragment pasted as a policy
// would validate as something else, or not at all.
func TestYAMLBlocksValidate(t *testing.T) {
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range allBlocks(t) {
		if b.lang != "yaml" && b.lang != "yml" {
			continue
		}
		n++
		t.Run(b.String(), func(t *testing.T) {
			if err := validateYAML(b, reg, t.TempDir()); err != "" {
				t.Errorf("%s: %s", b, err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no yaml block found: the documentation files were not read")
	}
}

// validateYAML checks one block; it returns "" or what is wrong.
func validateYAML(b block, reg *framework.Registry, dir string) string {
	text := strings.Join(b.lines, "\n") + "\n"
	var head map[string]any
	if err := yaml.Unmarshal([]byte(text), &head); err != nil {
		return "not YAML of one object: " + err.Error()
	}
	apiVersion, _ := head["apiVersion"].(string)
	kind, _ := head["kind"].(string)
	switch {
	case kind == api.PolicyKind || strings.HasPrefix(apiVersion, "descheduler/"):
		if _, err := api.Load([]byte(text), reg); err != nil {
			return "the policy does not load: " + err.Error()
		}
		return ""
	case apiVersion != "" && kind != "":
		path := filepath.Join(dir, "block.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err.Error()
		}
		_, warnings, err := snapshot.LoadFiles([]string{path}, nil)
		if err != nil {
			return "the objects do not load as a snapshot: " + err.Error()
		}
		if len(warnings) > 0 {
			return "loading it as a snapshot warns: " + strings.Join(warnings, "; ")
		}
		return ""
	}
	return "neither a policy (kind: DeschedulerPolicy) nor an object with apiVersion and kind: show a whole policy, or use another fence for a fragment"
}
