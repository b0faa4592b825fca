package lownodeutilization

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Every nodePools problem is reported at its path, the plugin's own
// thresholds becoming optional.
func TestNodePoolsValidate(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{{
		name: "two pools, no plugin thresholds",
		yaml: `
nodePools:
- {name: latency, nodeSelector: pool=latency, thresholds: {cpu: 50}, targetThresholds: {cpu: 70}}
- {name: batch, nodeSelector: {matchLabels: {pool: batch}}, thresholds: {cpu: 70}, targetThresholds: {cpu: 90}}
`,
	}, {
		name: "a pool takes the plugin's pair",
		yaml: `
thresholds: {cpu: 20}
targetThresholds: {cpu: 50}
nodePools: [{name: gpu, nodeSelector: "accelerator in (a100,h100)", numberOfNodes: 1}]
`,
	}, {
		name: "every problem with its path",
		yaml: `
nodePools:
- {name: Latency, nodeSelector: pool=latency, thresholds: {cpu: 80}, targetThresholds: {cpu: 70}}
- {name: batch, nodeSelector: "pool in (batch,latency)", thresholds: {cpu: 70}}
- {name: batch, nodeSelector: "", numberOfNodes: -1, minPodRelief: 120, classification: Usage}
- {nodeSelector: "pool=a,,"}
`,
		want: []string{
			`args.nodePools[0].name: Invalid value: "Latency": a lowercase RFC 1123 label must consist of`,
			`args.nodePools[1].nodeSelector: Invalid value: "pool in (batch,latency)": overlaps nodePools[0] ("pool=latency")`,
			`args.nodePools[2].name: Duplicate value: "batch (also nodePools[1])"`,
			`args.nodePools[2].nodeSelector: Required value: a pool must select its nodes`,
			`args.nodePools[3].name: Required value`,
			`args.nodePools[3].nodeSelector: Invalid value: "pool=a,,"`,
			`args.nodePools[0].thresholds[cpu]: Invalid value: 80: must not be greater than targetThresholds[cpu] (70)`,
			`args.nodePools[1].targetThresholds: Required value`,
			`args.nodePools[2].thresholds: Required value: the pool sets no thresholds and targetThresholds and the plugin has none to take`,
			`args.nodePools[2].numberOfNodes: Invalid value: -1`,
			`args.nodePools[2].classification: Invalid value: "Usage"`,
			`args.nodePools[2].minPodRelief: Invalid value: 120`,
			`args.nodePools[3].thresholds: Required value`,
		},
	}, {
		name: "without pools the plugin's thresholds stay required",
		yaml: `numberOfNodes: 1`,
		want: []string{`args.thresholds: Required value`, `args.targetThresholds: Required value`},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a Args
			if err := yaml.UnmarshalStrict([]byte(tc.yaml), &a); err != nil {
				t.Fatal(err)
			}
			a.Default()
			errs := a.Validate(field.NewPath("args"))
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			t.Logf("errors:\n%s", joinLines(got))
			for _, w := range tc.want {
				if !slices.ContainsFunc(got, func(g string) bool { return len(g) >= len(w) && g[:len(w)] == w }) {
					t.Errorf("missing error %q", w)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %d errors, want %d:\n%s", len(got), len(tc.want), joinLines(got))
			}
		})
	}
}

func joinLines(s []string) string {
	out := ""
	for _, l := range s {
		out += "  " + l + "\n"
	}
	return out
}
