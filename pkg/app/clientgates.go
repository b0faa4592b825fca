package app

import (
	"fmt"
	"strconv"

	clientfeatures "k8s.io/client-go/features"
	"k8s.io/component-base/featuregate"
)

// clientGateDefaults are the defaults this binary gives client-go's own
// feature gates where they differ from client-go's.
//
// WatchListClient (beta in client-go v0.34, off by default there) makes
// the informers fill their caches from one streaming watch instead of one
// LIST whose whole response is decoded before the first object is trimmed
// (Kubernetes documentation, "Efficient detection of changes": streaming
// lists). With 150,000 realistic pods that list was the descheduler's
// memory peak: on the live benchmark (docs/benchmarks.md, "Live 5,000
// nodes") peak RSS fell from 998-1,555 MiB to 466-469 MiB at 1,000 nodes,
// and from 6.3 to 2.9 GiB at 5,000. An API server that does not serve
// streaming lists is answered with a plain LIST by client-go's reflector,
// so the default is safe; `--feature-gates WatchListClient=false` turns it
// off.
var clientGateDefaults = map[featuregate.Feature]bool{"WatchListClient": true}

// clientGateRegistry adds client-go's feature gates to a component-base
// feature gate, so --feature-gates accepts them. A gate's default is
// client-go's, or clientGateDefaults', or the value of the environment
// variable KUBE_FEATURE_<gate> that client-go itself reads when it is set
// to true or false (lookupEnv is os.LookupEnv outside tests).
type clientGateRegistry struct {
	fg        featuregate.MutableFeatureGate
	lookupEnv func(string) (string, bool)
}

// Add implements client-go's features.Registry.
func (r clientGateRegistry) Add(specs map[clientfeatures.Feature]clientfeatures.FeatureSpec) error {
	out := make(map[featuregate.Feature]featuregate.FeatureSpec, len(specs))
	for name, s := range specs {
		f := featuregate.Feature(name)
		def := s.Default
		if d, ok := clientGateDefaults[f]; ok && !s.LockToDefault {
			def = d
		}
		if v, ok := r.lookupEnv("KUBE_FEATURE_" + string(name)); ok && !s.LockToDefault {
			if b, err := strconv.ParseBool(v); err == nil {
				def = b
			}
		}
		spec := featuregate.FeatureSpec{Default: def, LockToDefault: s.LockToDefault, PreRelease: featuregate.GA}
		switch s.PreRelease {
		case clientfeatures.Alpha:
			spec.PreRelease = featuregate.Alpha
		case clientfeatures.Beta:
			spec.PreRelease = featuregate.Beta
		case clientfeatures.Deprecated:
			spec.PreRelease = featuregate.Deprecated
		}
		out[f] = spec
	}
	if err := r.fg.Add(out); err != nil {
		return fmt.Errorf("adding client-go's feature gates: %w", err)
	}
	return nil
}

// clientGates answers client-go's feature questions from the binary's
// feature gate (--feature-gates).
type clientGates struct{ fg featuregate.FeatureGate }

// Enabled implements client-go's features.Gates.
func (g clientGates) Enabled(f clientfeatures.Feature) bool {
	return g.fg.Enabled(featuregate.Feature(f))
}

// useClientGates hands client-go its feature gates from fg. client-go keeps
// them process-wide, so this is called once per live run or snapshot,
// before any client or informer is built. A process that pinned its gates
// (pinClientGates) keeps them.
func useClientGates(fg featuregate.FeatureGate) {
	if _, pinned := clientfeatures.FeatureGates().(pinnedClientGates); pinned {
		return
	}
	clientfeatures.ReplaceFeatureGates(clientGates{fg})
}

// pinnedClientGates are client-go gates that useClientGates leaves in place.
type pinnedClientGates struct{ clientfeatures.Gates }

// pinClientGates fixes client-go's gates for the rest of the process. The
// package's tests pin WatchListClient off: they run many commands in one
// process against fake clientsets, which do not answer streaming lists
// (an informer then waits 10 s for the initial-events bookmark before it
// falls back to a LIST).
func pinClientGates(g clientfeatures.Gates) {
	clientfeatures.ReplaceFeatureGates(pinnedClientGates{g})
}
