package docs_test

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/usage-descheduler/descheduler/pkg/app"
)

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
// live run, snapshot, untaint and history without --file, kubectl, helm, and anything else that is
// neither the descheduler nor make.
func isLive(words []string) bool {
	words = dropEnv(words)
	if len(words) == 0 || words[0] == "make" {
		return false
	}
	if isDescheduler(words[0]) {
		return !isOffline(words[1:])
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
