package docs_test

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"
)

// dataKeyed are the objects of the JSON output whose keys are data
// (plugin names, workloads, resources), not field names: any key is
// documented by one example key.
var dataKeyed = []string{
	"nodes[].classifications", "nodes[].hysteresis", "cycles[].nodes[].classifications",
	"cycles[].nodes[].hysteresis", "end.nodes[].classifications", "end.nodes[].hysteresis",
	"summary.skippedEvictions", "summary.evictionsPerWorkload", "summary.target", "summary.outcomes",
	"summary.pools[].target",
}

// TestJSONOutputIsDocumented: every field `simulate -o json` writes, for
// one cycle and for --cycles, on the hotspot example and on the node pools
// example, is in the shape docs/simulator.md shows, so a field added to
// the output cannot stay undocumented. In the documented shape, a key
// "..." or a list of "..." text stands for fields documented elsewhere.
func TestJSONOutputIsDocumented(t *testing.T) {
	var shapes []block
	for _, b := range allBlocks(t) {
		if b.file == "docs/simulator.md" && b.lang == "json" {
			shapes = append(shapes, b)
		}
	}
	if len(shapes) != 2 {
		t.Fatalf("docs/simulator.md has %d json blocks; this test knows two: one cycle, then --cycles", len(shapes))
	}
	hotspot := []string{"simulate", "--policy", "deploy/examples/hotspot-metrics-server.yaml",
		"--snapshot", "deploy/examples/hotspot-cluster.yaml", "--now", "2026-01-01T12:00:00Z", "-o", "json", "-q"}
	pools := []string{"simulate", "--policy", "docs/examples/nodepools.yaml",
		"--snapshot", "docs/examples/nodepools-cluster.yaml", "--now", "2026-01-01T12:00:00Z", "-o", "json", "-q"}
	dir := scratchDir(t)
	for j, args := range [][]string{hotspot, append(slices.Clone(hotspot), "--cycles", "3"),
		pools, append(slices.Clone(pools), "--cycles", "3")} {
		i := j % 2 // the shape: one cycle, then --cycles
		documented, wildcards := docPaths(t, shapes[i])
		out, err := runDescheduler(t, dir, args)
		if err != nil {
			t.Fatalf("descheduler %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var actual any
		if err := json.Unmarshal([]byte(out), &actual); err != nil {
			t.Fatalf("descheduler %s: not JSON: %v", strings.Join(args, " "), err)
		}
		paths := map[string]bool{}
		collectPaths(actual, "", paths, nil)
		var missing []string
		for p := range paths {
			if !documented[p] && !underWildcard(p, wildcards) {
				missing = append(missing, p)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: `descheduler %s` writes fields the shape leaves out: %s", shapes[i], strings.Join(args, " "), strings.Join(missing, ", "))
		}
		if len(paths) < 10 {
			t.Errorf("only %d fields in the output: %v", len(paths), paths)
		}
	}
}

// docPaths reads a documented shape: its field paths, and the paths under
// which anything is documented.
func docPaths(t *testing.T, b block) (map[string]bool, []string) {
	t.Helper()
	var shape any
	if err := json.Unmarshal([]byte(strings.Join(b.lines, "\n")), &shape); err != nil {
		t.Fatalf("%s: the documented shape is not JSON: %v", b, err)
	}
	paths := map[string]bool{}
	var wildcards []string
	collectPaths(shape, "", paths, &wildcards)
	return paths, wildcards
}

// collectPaths adds the key paths of v under prefix ("a.b", lists as
// "a[]"); keys of data-keyed objects become "*". With wildcards, a key
// "..." or a list holding "..." text marks its path as a wildcard.
func collectPaths(v any, prefix string, paths map[string]bool, wildcards *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if k == "..." && wildcards != nil {
				*wildcards = append(*wildcards, prefix)
				continue
			}
			if slices.Contains(dataKeyed, prefix) {
				k = "*"
			}
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			paths[p] = true
			collectPaths(child, p, paths, wildcards)
		}
	case []any:
		for _, child := range x {
			if s, ok := child.(string); ok && strings.HasPrefix(s, "...") && wildcards != nil {
				*wildcards = append(*wildcards, prefix+"[]")
				continue
			}
			collectPaths(child, prefix+"[]", paths, wildcards)
		}
	}
}

// underWildcard reports whether path lies under one of the wildcards.
func underWildcard(path string, wildcards []string) bool {
	for _, w := range wildcards {
		if strings.HasPrefix(path, w+".") || strings.HasPrefix(path, w+"[]") {
			return true
		}
	}
	return false
}
