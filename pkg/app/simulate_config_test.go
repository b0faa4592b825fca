package app

import "testing"

// simulationTarget names the profile of the first enabled
// LowNodeUtilization plugin, whose DefaultEvictor the lower bound uses:
// profile "first" has the plugin configured but not enabled, so "second"
// is the one.
func TestSimulationTargetProfile(t *testing.T) {
	policy := loadPolicyText(t, `
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: first
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 20}
          targetThresholds: {cpu: 50}
    plugins:
      balance:
        enabled: []
  - name: second
    pluginConfig:
      - name: LowNodeUtilization
        args:
          thresholds: {cpu: 30}
          targetThresholds: {cpu: 70}
    plugins:
      balance:
        enabled: [LowNodeUtilization]
`)
	target, _ := simulationTarget(policy)
	if target.Profile != "second" || target.Thresholds["cpu"] != 70 {
		t.Errorf("target profile %q, cpu %v: want second, 70", target.Profile, target.Thresholds["cpu"])
	}
}
