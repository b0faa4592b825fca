// Command descheduler evicts pods so the kube-scheduler can place them
// better, by requests and by real usage. See README.md.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := app.NewRootCommand(os.Stdout, os.Stderr).ExecuteContext(ctx)
	stop()
	klog.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
