package docs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/strategies"
)

// The checks themselves, on worked inputs: each must be able to fail.

func TestShellWords(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{`descheduler validate --policy p.yaml`, []string{"descheduler", "validate", "--policy", "p.yaml"}},
		{`kubectl taint nodes --all 'a:b-' # comment`, []string{"kubectl", "taint", "nodes", "--all", "a:b-"}},
		{`simulate --now <printed time> -o x`, []string{"simulate", "--now", "<printed time>", "-o", "x"}},
		{`simulate -o json > /dev/null`, []string{"simulate", "-o", "json"}},
		{`a "b c"\ d | e`, []string{"a", "b c d"}},
	} {
		if got := shellWords(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("shellWords(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestParseCommands(t *testing.T) {
	b := block{lang: "console", lines: []string{"$ descheduler simulate \\", "  --policy p.yaml", "NODE  CLASS", "…", "$ descheduler version", "descheduler dev"}}
	got := parseCommands(b)
	if len(got) != 2 || strings.Join(got[0].words, " ") != "descheduler simulate --policy p.yaml" ||
		!slices.Equal(got[0].output, []string{"NODE  CLASS", "…"}) || !slices.Equal(got[1].output, []string{"descheduler dev"}) {
		t.Errorf("parseCommands = %+v", got)
	}
	sh := parseCommands(block{lang: "sh", lines: []string{"# a comment", "", "make run  # builds"}})
	if len(sh) != 1 || !slices.Equal(sh[0].words, []string{"make", "run"}) || sh[0].output != nil {
		t.Errorf("sh block = %+v", sh)
	}
}

func TestMatchLines(t *testing.T) {
	got := []string{"NODE CLASS", "n1 hot", "n2 cold", "n3 cold", "", "2 evictions planned: LowNodeUtilization 2"}
	for _, tc := range []struct {
		want []string
		ok   bool
	}{
		{got, true},
		{[]string{"NODE CLASS", "…", "2 evictions planned: …"}, true},
		{[]string{"NODE CLASS", "n1 hot", "…", "n3 cold", "", "2 evictions …"}, true},
		// A changed number is caught, elided lines or not.
		{[]string{"NODE CLASS", "…", "3 evictions planned: …"}, false},
		{[]string{"NODE CLASS", "n1 cold", "…"}, false},
		// Shown lines must all be there, in order.
		{[]string{"n2 cold", "n1 hot", "…"}, false},
		{[]string{"NODE CLASS"}, false},
	} {
		if ok := matchLines(tc.want, got); ok != tc.ok {
			t.Errorf("matchLines(%q) = %v, want %v", tc.want, ok, tc.ok)
		}
	}
}

func TestIsLive(t *testing.T) {
	for line, want := range map[string]bool{
		"descheduler simulate --policy p":                       false,
		"bin/descheduler validate --policy p":                   false,
		"descheduler snapshot -o x.json":                        true,
		"descheduler --policy-config-file p":                    true,
		"descheduler untaint --all":                             true,
		"descheduler history --namespace kube-system":           true,
		"descheduler history --file docs/examples/history.json": false,
		"descheduler history --file=docs/examples/history.json": false,
		"descheduler history -o json --file h.json --since 1h":  false,
		"kubectl apply -k deploy/kustomize/deployment":          true,
		"make run":             false,
		"E2E_SKIP=1 make test": false,
		"go run ./hack/peakrss -- bin/descheduler simulate": true,
	} {
		if got := isLive(shellWords(line)); got != want {
			t.Errorf("isLive(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestParseFlagsRejects(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "--polcy", "p.yaml"},
		{"simulat", "--policy", "p.yaml"},
		{"generate", "--nodes", "N"},
		{"--descheduling-interval", "5"},
	} {
		if err := parseFlags(args); err == nil {
			t.Errorf("parseFlags(%q) accepted it", args)
		}
	}
	if err := parseFlags([]string{"simulate", "--policy-config-file", "p.yaml", "--cycles", "12", "-o", "wide"}); err != nil {
		t.Errorf("a valid command line: %v", err)
	}
}

func TestValidateYAMLRejects(t *testing.T) {
	reg, err := strategies.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	for name, lines := range map[string][]string{
		// A fragment of a policy is no policy.
		"fragment": {"- name: DefaultEvictor", "  args: {nodeFit: true}"},
		// "..." ends a YAML document: what follows is a second one.
		"elided":        {"apiVersion: descheduler/v1alpha2", "kind: DeschedulerPolicy", "...", "profiles: []"},
		"unknown field": {"apiVersion: descheduler/v1alpha2", "kind: DeschedulerPolicy", "maxNoOfPodsToEvictPerNod: 1"},
		"bad object":    {"apiVersion: v1", "kind: Node", "metadata: {name: n}", "spec: {unschedulable: maybe}"},
		"unknown kind":  {"apiVersion: example.com/v1", "kind: Widget", "metadata: {name: w}"},
		"no kind":       {"thresholds: {cpu: 20}"},
	} {
		if msg := validateYAML(block{file: name, lines: lines}, reg, t.TempDir()); msg == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	ok := []string{"apiVersion: descheduler/v1alpha2", "kind: DeschedulerPolicy", "profiles:", "  - name: p", "    plugins: {balance: {enabled: [RemoveDuplicates]}}"}
	if msg := validateYAML(block{file: "ok", lines: ok}, reg, t.TempDir()); msg != "" {
		t.Errorf("a valid policy: %s", msg)
	}
}
