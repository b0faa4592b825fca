// Command peakrss runs a command and reports its peak resident set size and
// wall time on standard error (Linux: the child's ru_maxrss), so `make
// bench` can measure memory without /usr/bin/time.
//
//	go run ./hack/peakrss -- bin/descheduler simulate ...
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: peakrss [--] COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// ru_maxrss is in KiB on Linux.
		fmt.Fprintf(os.Stderr, "peakrss: %.0f MiB peak RSS, %.1f s wall, %.1f s user, %.1f s system\n",
			float64(ru.Maxrss)/1024, elapsed.Seconds(), cmd.ProcessState.UserTime().Seconds(),
			cmd.ProcessState.SystemTime().Seconds())
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
