package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
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

// offlineWithFile are the commands that need no cluster when they read a
// file instead (history --file).
var offlineWithFile = map[string]string{"history": "--file"}

// isOffline reports whether the descheduler command line args (after the
// binary) needs no cluster, so the documentation's example runs.
func isOffline(args []string) bool {
	sub := subcommand(args)
	if offline[sub] {
		return true
	}
	flag, ok := offlineWithFile[sub]
	if !ok {
		return false
	}
	for _, a := range args[1:] {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

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
		if live || !isOffline(args) {
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
