package app

import (
	"os"
	"testing"

	logsapi "k8s.io/component-base/logs/api/v1"
)

// TestMain lets the tests run many commands in one process: the logging
// configuration can be applied once, later applications must be unchanged;
// client-go's streaming lists stay off, since the fake clientsets do not
// serve them (pinClientGates).
func TestMain(m *testing.M) {
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
	fg, err := (&FeatureGateOptions{Gates: map[string]bool{"WatchListClient": false}}).Apply()
	if err != nil {
		panic(err)
	}
	pinClientGates(clientGates{fg})
	os.Exit(m.Run())
}
