package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOperationsListsEveryMetric: the operations page's table of series
// and their cardinality names every metric of the generated reference, so
// a new metric cannot be left out of it.
func TestOperationsListsEveryMetric(t *testing.T) {
	ref, err := os.ReadFile(filepath.Join(root, "docs", "reference", "metrics.md"))
	if err != nil {
		t.Fatal(err)
	}
	ops, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile("(?m)^\\| `(descheduler_[a-z_]+)` \\|").FindAllStringSubmatch(string(ref), -1)
	if len(names) < 10 {
		t.Fatalf("read %d metrics from the reference; is it generated?", len(names))
	}
	for _, m := range names {
		if !strings.Contains(string(ops), "| `"+m[1]+"`") {
			t.Errorf("docs/operations.md has no row for %s", m[1])
		}
	}
}
