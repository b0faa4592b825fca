package docs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/pkg/app"
)

// command is one command line of a shell or console block.
type command struct {
	words []string
	// output is what a console block shows after the command; nil in a
	// sh block.
	output []string
}

// offline are the descheduler commands that need no cluster: they run.
var offline = map[string]bool{"simulate": true, "validate": true, "generate": true, "version": true}

// TestCommandBlocks runs every offline descheduler command the
// documentation shows and compares its output where the block shows it;
// commands that need a cluster get their flags parsed by the binary's own
// command tree, and `make` commands must name a Makefile target.
func TestCommandBlocks(t *testing.T) {
	targets := makeTargets(t)
	n := 0
	for _, b := range allBlocks(t) {
		if b.lang != "sh" && b.lang != "console" && b.lang != "bash" {
			continue
		}
		cmds := parseCommands(b)
		live := false
		for _, c := range cmds {
			live = live || isLive(c.words)
		}
		// The commands of one block share a scratch directory: a block
		// may generate a file and simulate it.
		var dir string
		for i, c := range cmds {
			n++
			name := fmt.Sprintf("%s/%d", b, i+1)
			t.Run(name, func(t *testing.T) {
				checkCommand(t, b, c, live, targets, func() string {
					if dir == "" {
						dir = scratchDir(t)
					}
					return dir
				})
			})
		}
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	if n == 0 {
		t.Fatal("no command found: the documentation files were not read")
	}
}

func checkCommand(t *testing.T, b block, c command, live bool, targets map[string]bool, scratch func() string) {
	words := dropEnv(c.words)
	if len(words) == 0 {
		return
	}
	switch {
	case words[0] == "make":
		for _, w := range words[1:] {
			if !strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !targets[w] {
				t.Errorf("%s: `make %s`: no such target in the Makefile", b, w)
			}
		}
	case words[0] == "go" && slices.Contains(words, "--"):
		// A wrapper such as `go run ./hack/peakrss -- bin/descheduler ...`:
		// the descheduler's flags are checked.
		wrapped := words[slices.Index(words, "--")+1:]
		if len(wrapped) > 0 && isDescheduler(wrapped[0]) {
			if err := parseFlags(wrapped[1:]); err != nil {
				t.Errorf("%s: `%s`: %v", b, strings.Join(words, " "), err)
			}
		}
	case isDescheduler(words[0]):
		args := words[1:]
		if err := parseFlags(args); err != nil {
			t.Errorf("%s: `%s`: %v", b, strings.Join(words, " "), err)
			return
		}
		if live || !offline[subcommand(args)] {
			return
		}
		out, err := runDescheduler(t, scratch(), args)
		if c.output == nil {
			if err != nil {
				t.Errorf("%s: `%s` failed: %v\n%s", b, strings.Join(words, " "), err, out)
			}
			return
		}
		if !matchLines(trimLines(c.output), trimLines(strings.Split(out, "\n"))) {
			t.Errorf("%s: the output of `%s` differs from the block's.\nshown:\n%s\nactual (exit: %v):\n%s",
				b, strings.Join(words, " "), strings.Join(c.output, "\n"), err, out)
		}
	}
}

// parseCommands splits a block into commands: in a console block the
// lines starting with "$ ", each followed by its output; in a sh block
// every line that is not blank or a comment. A trailing backslash joins
// the next line; a comment after the command is dropped, and so is a
// redirection or pipe (the check is on the descheduler's arguments).
func parseCommands(b block) []command {
	var out []command
	console := b.lang == "console"
	for i := 0; i < len(b.lines); i++ {
		line := strings.TrimSpace(b.lines[i])
		if console {
			if !strings.HasPrefix(line, "$ ") {
				if len(out) > 0 {
					out[len(out)-1].output = append(out[len(out)-1].output, b.lines[i])
				}
				continue
			}
			line = strings.TrimPrefix(line, "$ ")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for strings.HasSuffix(line, `\`) && i+1 < len(b.lines) {
			i++
			line = strings.TrimSuffix(line, `\`) + " " + strings.TrimSpace(b.lines[i])
		}
		c := command{words: shellWords(line)}
		if console {
			c.output = []string{}
		}
		out = append(out, c)
	}
	return out
}

// shellWords splits a command line as a POSIX shell would for simple
// commands: quotes group, a backslash escapes, a <placeholder> is one
// word; it stops at a comment, a redirection or a pipe.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	runes := []rune(line)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == '\\' && i+1 < len(runes):
			i++
			cur.WriteRune(runes[i])
			inWord = true
		case r == ' ' || r == '\t':
			flush()
		case r == '<' && !inWord:
			// A <placeholder> is one word, spaces included.
			end := i
			for end < len(runes) && runes[end] != '>' {
				end++
			}
			if end == len(runes) {
				return words
			}
			words = append(words, string(runes[i:end+1]))
			i = end
		case (r == '#' && !inWord) || r == '>' || r == '|':
			flush()
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}

// envAssignment is a leading VAR=value of a shell command.
var envAssignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// dropEnv removes leading VAR=value assignments.
func dropEnv(words []string) []string {
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		words = words[1:]
	}
	return words
}

func isDescheduler(w string) bool {
	return w == "descheduler" || w == "bin/descheduler" || w == "./bin/descheduler"
}

// subcommand is the first argument that is not a flag, "" for the live run.
func subcommand(args []string) string {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0]
	}
	return ""
}

// isLive reports whether a command needs a cluster: the descheduler's
// live run, snapshot and untaint, kubectl, helm, and anything else that is
// neither the descheduler nor make.
func isLive(words []string) bool {
	words = dropEnv(words)
	if len(words) == 0 || words[0] == "make" {
		return false
	}
	if isDescheduler(words[0]) {
		return !offline[subcommand(words[1:])]
	}
	return true
}

// parseFlags parses args with the binary's command tree: an unknown
// command or flag, or a value that does not parse, is an error.
func parseFlags(args []string) error {
	root := app.NewRootCommand(io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if sub := subcommand(args); sub != "" && cmd.Name() != sub {
		return fmt.Errorf("no command %q", sub)
	}
	return cmd.ParseFlags(rest)
}

// matchLines matches output against what a block shows: a line "…" stands
// for any number of lines, a line ending in "…" for a line starting with
// the text before it.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	w := want[0]
	if w == "…" {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	if prefix, ok := strings.CutSuffix(w, "…"); ok {
		if !strings.HasPrefix(got[0], prefix) {
			return false
		}
	} else if w != got[0] {
		return false
	}
	return matchLines(want[1:], got[1:])
}

// trimLines drops trailing spaces and trailing empty lines.
func trimLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t\r")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// makeTargets reads the target names of the Makefile and the files it
// includes.
func makeTargets(t *testing.T) map[string]bool {
	t.Helper()
	targets := map[string]bool{}
	rule := regexp.MustCompile(`^([A-Za-z0-9_.-]+(?:[ \t]+[A-Za-z0-9_.-]+)*)[ \t]*:([^=]|$)`)
	include := regexp.MustCompile(`^include[ \t]+(.+)$`)
	files := []string{"Makefile"}
	for i := 0; i < len(files); i++ {
		data, err := os.ReadFile(filepath.Join(root, files[i]))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if m := include.FindStringSubmatch(line); m != nil {
				files = append(files, strings.Fields(m[1])...)
			}
			if m := rule.FindStringSubmatch(line); m != nil {
				for _, name := range strings.Fields(m[1]) {
					targets[name] = true
				}
			}
		}
	}
	return targets
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

// TestMain removes the binary built for the command checks.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// descheduler builds the binary once per test process.
func descheduler(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "docs-descheduler-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "descheduler")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/descheduler")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// scratchDir makes a directory that sees the repository's deploy/ and
// docs/ and has its own bin/ (holding the binary), so the documented
// relative paths work and outputs stay out of the repository.
func scratchDir(t *testing.T) string {
	t.Helper()
	bin := descheduler(t)
	dir, err := os.MkdirTemp("", "docs-commands-")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"deploy", "docs"} {
		if err := os.Symlink(filepath.Join(abs, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "descheduler")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runDescheduler runs the binary with args in dir.
func runDescheduler(t *testing.T, dir string, args []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, descheduler(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("`descheduler %s` did not finish within 3 minutes", strings.Join(args, " "))
	}
	return string(out), err
}

// TestCommandsAreInCheckedBlocks: a descheduler command shown in a block
// without the sh or console language would escape TestCommandBlocks.
func TestCommandsAreInCheckedBlocks(t *testing.T) {
	for _, b := range allBlocks(t) {
		if b.lang == "sh" || b.lang == "console" || b.lang == "bash" {
			continue
		}
		for i, line := range b.lines {
			words := dropEnv(shellWords(strings.TrimPrefix(strings.TrimSpace(line), "$ ")))
			if len(words) > 1 && isDescheduler(words[0]) && !strings.HasPrefix(words[1], "\"") {
				t.Errorf("%s: line %d runs the descheduler in a %q block: fence it as sh (or console, with its output)", b, b.line+1+i, b.lang)
			}
		}
	}
}
