package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// root is the repository root seen from this package's directory.
const root = "../.."

// block is one fenced code block of a Markdown file.
type block struct {
	file  string // path relative to the repository root
	line  int    // line of the opening fence, 1-based
	lang  string // the fence's info string, e.g. "yaml"
	lines []string
}

func (b block) String() string { return b.file + ":" + strconv.Itoa(b.line) }

var fence = regexp.MustCompile("^(\\s*)(```+)\\s*([A-Za-z0-9_-]*)\\s*$")

// parseBlocks returns the fenced code blocks of Markdown text. A block
// inside a list item is indented; its lines lose that indentation.
func parseBlocks(file, text string) []block {
	var out []block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		indent, marker := m[1], m[2]
		b := block{file: file, line: i + 1, lang: m[3]}
		for i++; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); len(t) >= len(marker) && strings.Trim(t, "`") == "" {
				break
			}
			b.lines = append(b.lines, strings.TrimPrefix(lines[i], indent))
		}
		out = append(out, b)
	}
	return out
}

// markdownFiles lists README.md and every Markdown file under docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

// allBlocks returns the fenced blocks of every documentation file.
func allBlocks(t *testing.T) []block {
	t.Helper()
	var out []block
	for _, f := range markdownFiles(t) {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parseBlocks(f, string(data))...)
	}
	return out
}

func TestParseBlocks(t *testing.T) {
	text := "intro\n```yaml\na: 1\n```\n- item\n\n  ```sh\n  make run\n  ```\n````md\n```\n````\n"
	got := parseBlocks("x.md", text)
	if len(got) != 3 {
		t.Fatalf("got %d blocks, want 3: %+v", len(got), got)
	}
	if got[0].lang != "yaml" || got[0].line != 2 || strings.Join(got[0].lines, "|") != "a: 1" {
		t.Errorf("block 1 = %+v", got[0])
	}
	// An indented block (in a list item) loses its indentation.
	if got[1].lang != "sh" || strings.Join(got[1].lines, "|") != "make run" {
		t.Errorf("block 2 = %+v", got[1])
	}
	// A longer fence holds a shorter one as text.
	if got[2].lang != "md" || strings.Join(got[2].lines, "|") != "```" {
		t.Errorf("block 3 = %+v", got[2])
	}
}
