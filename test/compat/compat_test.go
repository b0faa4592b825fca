// Package compat checks that policies written in kubernetes-sigs/descheduler
// v0.36's format load and simulate here: every file in policies/ is
// validated by `descheduler validate`, simulated by `descheduler simulate`
// on deploy/examples/cluster.yaml at a fixed clock and compared with its
// golden output in testdata/ (go test ./test/compat -update rewrites them),
// and together the files must use every v0.36 policy field (DefaultEvictor
// args excepted: the evictor-*.yaml files cover those).
package compat

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/usage-descheduler/descheduler/pkg/app"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	clusterSnapshot = "../../deploy/examples/cluster.yaml"
	clock           = "2026-01-01T12:00:00Z"
)

// policies returns every policy of the corpus, sorted.
func policies(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("policies", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no policies in policies/: %v", err)
	}
	sort.Strings(files)
	return files
}

// run executes the descheduler command line and returns stdout.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := app.NewRootCommand(&out, &errOut)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestCorpusValidates(t *testing.T) {
	for _, file := range policies(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			if out, err := run(t, "validate", "--policy", file); err != nil {
				t.Fatalf("rejected: %v\n%s", err, out)
			}
		})
	}
}

func TestCorpusSimulateGolden(t *testing.T) {
	for _, file := range policies(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			got, err := run(t, "simulate", "--policy", file, "--snapshot", clusterSnapshot, "--now", clock, "-o", "json")
			if err != nil {
				t.Fatalf("simulate: %v", err)
			}
			golden := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./test/compat -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("simulate output of %s differs from %s (go test ./test/compat -update rewrites it):\n%s",
					file, golden, got)
			}
		})
	}
}

// TestCorpusCoversEveryField requires every v0.36 field (upstream's
// v1alpha2 types and every plugin's args types, DefaultEvictor's excepted)
// to appear in some policy of the corpus. Paths leave out list indices;
// args are named by their plugin: "args[PodLifeTime].ownerKinds.include".
func TestCorpusCoversEveryField(t *testing.T) {
	used := map[string]bool{}
	for _, file := range policies(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		collectPaths(doc, "", used)
	}
	var missing []string
	for _, p := range v036Fields() {
		if !used[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no policy in policies/ uses:\n  %s", strings.Join(missing, "\n  "))
	}
}

// collectPaths records the path of every mapping key below v. The args of
// a pluginConfig are recorded below "args[<plugin name>]"; the keys of
// resource maps (thresholds, targetThresholds) and of label maps are data,
// not fields, and are not descended into.
func collectPaths(v any, prefix string, used map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			collectPaths(item, prefix, used)
		}
	case map[string]any:
		if name, ok := x["name"].(string); ok && prefix == "profiles.pluginConfig" {
			used[prefix+".name"] = true
			if args, ok := x["args"]; ok {
				used[prefix+".args"] = true
				collectPaths(args, "args["+name+"]", used)
			}
			return
		}
		for k, val := range x {
			p := join(prefix, k)
			used[p] = true
			if slices.Contains([]string{"thresholds", "targetThresholds", "matchLabels"}, k) {
				continue
			}
			collectPaths(val, p, used)
		}
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}
