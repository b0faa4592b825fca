package app

import (
	"os"

	"github.com/spf13/cobra"
	xterm "golang.org/x/term"

	"github.com/usage-descheduler/descheduler/pkg/progress"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// newProgress returns the progress reporter of a command: a bar redrawn on
// standard error when it is a terminal, plain periodic lines otherwise,
// nothing with --quiet.
func newProgress(cmd *cobra.Command, quiet bool) *progress.Reporter {
	w := cmd.ErrOrStderr()
	terminal := false
	if f, ok := w.(*os.File); ok {
		terminal = xterm.IsTerminal(int(f.Fd()))
	}
	return progress.New(progress.Options{Out: w, Terminal: terminal, Quiet: quiet})
}

// loadSnapshots loads snapshot files showing the bytes read of their total
// size (unknown when stdin is one of them).
func loadSnapshots(cmd *cobra.Command, paths []string, quiet bool) (snapshot.Objects, []string, error) {
	files, err := snapshot.SnapshotFiles(paths)
	if err != nil {
		return snapshot.Objects{}, nil, err
	}
	var total int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			total += info.Size()
		}
	}
	for _, p := range paths {
		if p == "-" {
			total = -1
		}
	}
	task := newProgress(cmd, quiet).Start("loading snapshot", total, progress.Bytes)
	defer task.Done()
	return snapshot.LoadFilesWith(paths, cmd.InOrStdin(), snapshot.LoadOptions{OnRead: task.Add})
}
