package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/usage-descheduler/descheduler/hack/docgen/markdown"
)

// link is an inline Markdown link: [text](target).
var link = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// heading is an ATX heading line.
var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// TestLinksResolve: every relative link of the documentation names a file
// of the repository and, with a #fragment, a heading of that file, so a
// page moved or a heading renamed cannot leave a reader at a dead end.
func TestLinksResolve(t *testing.T) {
	anchors := map[string]map[string]bool{}
	for _, f := range markdownFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range links(string(data)) {
			if strings.Contains(ref.target, "://") || strings.HasPrefix(ref.target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(ref.target, "#")
			target := f
			if path != "" {
				target = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
			}
			info, err := os.Stat(filepath.Join(root, target))
			if err != nil {
				t.Errorf("%s:%d: link %q: %s does not exist", f, ref.line, ref.target, target)
				continue
			}
			if frag == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: link %q: a fragment needs a Markdown file", f, ref.line, ref.target)
				continue
			}
			if anchors[target] == nil {
				text, err := os.ReadFile(filepath.Join(root, target))
				if err != nil {
					t.Fatal(err)
				}
				anchors[target] = headingAnchors(string(text))
			}
			if !anchors[target][frag] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor %q", f, ref.line, ref.target, target, frag)
			}
		}
	}
}

type linkRef struct {
	target string
	line   int
}

// links returns the inline links outside code blocks and code spans.
func links(text string) []linkRef {
	var out []linkRef
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			out = append(out, linkRef{target: m[1], line: i + 1})
		}
	}
	return out
}

// stripCodeSpans blanks `code spans`, where brackets are not links.
func stripCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	for i := 1; i < len(parts); i += 2 {
		parts[i] = ""
	}
	return strings.Join(parts, "`")
}

// headingAnchors returns the anchors GitHub gives the headings of a page:
// lower case, punctuation other than '-' and '_' dropped, spaces to '-',
// a repeated anchor numbered -1, -2, ...
func headingAnchors(text string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		a := markdown.Anchor(m[1])
		if out[a] {
			for n := 1; ; n++ {
				if b := a + "-" + strconv.Itoa(n); !out[b] {
					a = b
					break
				}
			}
		}
		out[a] = true
	}
	return out
}

func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# Title\n## Differences from kubernetes-sigs/descheduler\n### `workloadBudget`: never take a workload below its availability\n## What `make test` needs and changes\n## Title\n```\n# not a heading\n```\n")
	for _, want := range []string{"title", "differences-from-kubernetes-sigsdescheduler",
		"workloadbudget-never-take-a-workload-below-its-availability", "what-make-test-needs-and-changes", "title-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block is no heading")
	}
}

func TestLinks(t *testing.T) {
	text := "see [ops](operations.md#upgrades) and `[not](a-link.md)`\n```\n[in](code.md)\n```\n[x](https://example.com)"
	got := links(text)
	if len(got) != 2 || got[0].target != "operations.md#upgrades" || got[0].line != 1 || got[1].target != "https://example.com" {
		t.Errorf("links = %+v", got)
	}
}
