package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/usage-descheduler/descheduler/hack/docgen/markdown"
	"github.com/usage-descheduler/descheduler/pkg/app"
)

// flagsPage lists every command's flags from the command tree the binary
// runs: name, type, default and help, the logging flags (shared by every
// command) once at the end.
func flagsPage() (string, error) {
	root := app.NewRootCommand(io.Discard, io.Discard)
	var b strings.Builder
	b.WriteString(header("Command-line flags", "the binary's flag sets (pkg/app)"))
	b.WriteString("Every command of `descheduler` and its flags, with the default the binary applies. " +
		"A default shown empty means the flag is off or unset. The live run is `descheduler` without a command; " +
		"the logging flags at the end apply to every command.\n\n")
	cmds := commands(root)
	b.WriteString("Commands: ")
	for i, c := range cmds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[%s](#%s)", c.CommandPath(), markdown.Anchor(c.CommandPath()))
	}
	b.WriteString(", [logging flags](#logging-flags-every-command).\n")
	logging := root.PersistentFlags()
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\nUsage: `%s`\n\n", c.CommandPath(), strings.TrimSuffix(c.Short, "."), c.UseLine())
		writeFlagTable(&b, c.LocalNonPersistentFlags(), func(f *pflag.Flag) bool { return logging.Lookup(f.Name) != nil })
	}
	b.WriteString("\n## Logging flags (every command)\n\n" +
		"component-base's logging options, registered on the root command and inherited by every command.\n\n")
	writeFlagTable(&b, logging, func(*pflag.Flag) bool { return false })
	return b.String(), nil
}

// commands returns root and its runnable subcommands, in name order, but
// not cobra's help and completion commands.
func commands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	subs := root.Commands()
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	for _, c := range subs {
		if c.Name() == "help" || c.Name() == "completion" || c.Hidden {
			continue
		}
		out = append(out, commands(c)...)
	}
	return out
}

// writeFlagTable writes one table row per flag of fs, sorted by name,
// leaving out the help flag and those skip reports.
func writeFlagTable(b *strings.Builder, fs *pflag.FlagSet, skip func(*pflag.Flag) bool) {
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Name == "help" || f.Hidden || skip(f) {
			return
		}
		flags = append(flags, f)
	})
	if len(flags) == 0 {
		b.WriteString("No flags of its own.\n")
		return
	}
	sort.Slice(flags, func(i, j int) bool { return flags[i].Name < flags[j].Name })
	b.WriteString("| Flag | Type | Default | Description |\n|---|---|---|---|\n")
	for _, f := range flags {
		name := "--" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", " + name
		}
		usage := f.Usage
		if f.Deprecated != "" {
			usage += " (deprecated: " + f.Deprecated + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", code(name), cell(f.Value.Type()), code(cell(flagDefault(f))), cell(usage))
	}
}

// flagDefault is the flag's default as the binary prints it, empty for
// zero values (false, 0, "", []).
func flagDefault(f *pflag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "0s", "map[]":
		return ""
	}
	return f.DefValue
}
