package compat

import (
	"os"
	"testing"

	logsapi "k8s.io/component-base/logs/api/v1"
)

// TestMain lets the tests run many descheduler commands in one process:
// component-base logging may otherwise be applied only once.
func TestMain(m *testing.M) {
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
	os.Exit(m.Run())
}
