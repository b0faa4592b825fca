package app

import (
	"testing"

	clientfeatures "k8s.io/client-go/features"
)

func TestClientGoFeatureGates(t *testing.T) {
	tests := []struct {
		name      string
		gates     map[string]bool
		watchList bool
		wantErr   bool
	}{
		{name: "streaming lists on by default", watchList: true},
		{name: "turned off with --feature-gates", gates: map[string]bool{"WatchListClient": false}},
		{name: "client-go's other gates are known", gates: map[string]bool{"InformerResourceVersion": true}, watchList: true},
		{name: "unknown gate", gates: map[string]bool{"WatchListClients": true}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fg, err := (&FeatureGateOptions{Gates: tt.gates}).Apply()
			if (err != nil) != tt.wantErr {
				t.Fatalf("Apply: %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got := (clientGates{fg}).Enabled(clientfeatures.WatchListClient); got != tt.watchList {
				t.Errorf("WatchListClient = %v, want %v", got, tt.watchList)
			}
			// Upstream's own gate is still known and off.
			if fg.Enabled(FeatureEvictionsInBackground) {
				t.Error("EvictionsInBackground enabled by default")
			}
		})
	}
}

// client-go's own environment variable still sets the default; a flag
// overrides it.
func TestClientGoFeatureGateEnv(t *testing.T) {
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			if k == "KUBE_FEATURE_WatchListClient" {
				return v, true
			}
			return "", false
		}
	}
	if newFeatureGateEnv(env("false")).Enabled("WatchListClient") {
		t.Error("KUBE_FEATURE_WatchListClient=false: still enabled")
	}
	if !newFeatureGateEnv(env("not-a-bool")).Enabled("WatchListClient") {
		t.Error("an unparsable KUBE_FEATURE_WatchListClient changed the default")
	}
	fg := newFeatureGateEnv(env("false"))
	if err := fg.SetFromMap(map[string]bool{"WatchListClient": true}); err != nil || !fg.Enabled("WatchListClient") {
		t.Errorf("--feature-gates WatchListClient=true over the variable: %v, enabled %v", err, fg.Enabled("WatchListClient"))
	}
}

// useClientGates hands the binary's gates to client-go process-wide,
// unless a process pinned its own (this package's TestMain does).
func TestUseClientGates(t *testing.T) {
	pinned := clientfeatures.FeatureGates()
	t.Cleanup(func() { clientfeatures.ReplaceFeatureGates(pinned) })
	gates := func(watchList bool) *clientGates {
		fg, err := (&FeatureGateOptions{Gates: map[string]bool{"WatchListClient": watchList}}).Apply()
		if err != nil {
			t.Fatal(err)
		}
		return &clientGates{fg}
	}

	// Not pinned: the binary's gates replace client-go's, both ways.
	clientfeatures.ReplaceFeatureGates(gates(false))
	useClientGates(gates(true).fg)
	if !clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Error("WatchListClient=true not handed to client-go")
	}
	useClientGates(gates(false).fg)
	if clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Error("WatchListClient=false not handed to client-go")
	}

	// Pinned: left in place.
	pinClientGates(gates(false))
	useClientGates(gates(true).fg)
	if clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) {
		t.Error("useClientGates replaced pinned gates")
	}
}
