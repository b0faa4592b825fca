package app

import (
	"os"
	"testing"

	logsapi "k8s.io/component-base/logs/api/v1"
)

// TestMain lets the tests run many commands in one process: the logging
// configuration can be applied once, later applications must be unchanged.
func TestMain(m *testing.M) {
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
	os.Exit(m.Run())
}
