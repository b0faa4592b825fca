package e2e

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// legacyWorkloadBudget turns the DefaultEvictor's workloadBudget off in
// every profile of policy that does not set workloadBudget itself. The
// cases written before the workload budget existed count evictions of
// several replicas of one Deployment, or of single-replica Deployments, in
// one cycle, which the budget (on by default) now refuses; they test
// other rules. A case about the budget sets workloadBudget explicitly in
// its profile (e.g. `workloadBudget: {enabled: true}`), which is kept.
func legacyWorkloadBudget(policy string) (string, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(policy), &doc); err != nil {
		return "", fmt.Errorf("reading the policy: %w", err)
	}
	profiles, _ := doc["profiles"].([]any)
	for _, p := range profiles {
		prof, ok := p.(map[string]any)
		if !ok {
			continue
		}
		configs, _ := prof["pluginConfig"].([]any)
		found := false
		for _, c := range configs {
			pc, ok := c.(map[string]any)
			if !ok || pc["name"] != "DefaultEvictor" {
				continue
			}
			found = true
			args, _ := pc["args"].(map[string]any)
			if args == nil {
				args = map[string]any{}
				pc["args"] = args
			}
			if _, set := args["workloadBudget"]; !set {
				args["workloadBudget"] = map[string]any{"enabled": false}
			}
		}
		if !found {
			prof["pluginConfig"] = append(configs, map[string]any{"name": "DefaultEvictor",
				"args": map[string]any{"workloadBudget": map[string]any{"enabled": false}}})
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("writing the policy: %w", err)
	}
	return string(out), nil
}
