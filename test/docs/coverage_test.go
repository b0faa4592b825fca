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

// TestOperationsListsEveryLiveFlag: the operations page's table of the
// live run's flags names every flag of the generated reference's
// `descheduler` section, so a new flag gets its explanation there too.
func TestOperationsListsEveryLiveFlag(t *testing.T) {
	ref, err := os.ReadFile(filepath.Join(root, "docs", "reference", "flags.md"))
	if err != nil {
		t.Fatal(err)
	}
	ops, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(ref), "\n## descheduler\n")
	if !ok {
		t.Fatal("the flag reference has no `descheduler` section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	flags := regexp.MustCompile("(?m)^\\| `(?:-[a-z], )?(--[a-z0-9-]+)`").FindAllStringSubmatch(section, -1)
	if len(flags) < 20 {
		t.Fatalf("read %d flags of the live run from the reference", len(flags))
	}
	for _, f := range flags {
		if !strings.Contains(string(ops), "`"+f[1]+"`") && !strings.Contains(string(ops), "`"+f[1]+" ") {
			t.Errorf("docs/operations.md does not explain %s", f[1])
		}
	}
}
