package api

import (
	"slices"
	"testing"
)

func TestDefaults(t *testing.T) {
	tests := []struct {
		name   string
		policy string
		// want per profile: enabled filter / preEvictionFilter plugins and
		// the pluginConfig names, in order.
		wantFilter    []string
		wantPreEvict  []string
		wantConfigs   []string
		wantEvictArgs fakeEvictorArgs
	}{{
		name: "DefaultEvictor and missing pluginConfigs are added",
		policy: `
profiles:
- name: p
  plugins:
    deschedule: {enabled: [PodLifeTime]}
    balance: {enabled: [RemoveDuplicates]}`,
		wantFilter:    []string{DefaultEvictorName},
		wantPreEvict:  []string{DefaultEvictorName},
		wantConfigs:   []string{"PodLifeTime", "RemoveDuplicates", DefaultEvictorName},
		wantEvictArgs: fakeEvictorArgs{defaulted: true},
	}, {
		name: "explicit DefaultEvictor is neither duplicated nor given a second config",
		policy: `
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true}
  plugins:
    filter: {enabled: [DefaultEvictor]}
    deschedule: {enabled: [PodLifeTime]}`,
		wantFilter:    []string{DefaultEvictorName},
		wantPreEvict:  []string{DefaultEvictorName},
		wantConfigs:   []string{DefaultEvictorName, "PodLifeTime"},
		wantEvictArgs: fakeEvictorArgs{NodeFit: true, defaulted: true},
	}, {
		name: "a profile without plugins still gets the DefaultEvictor",
		policy: `
profiles:
- name: p`,
		wantFilter:    []string{DefaultEvictorName},
		wantPreEvict:  []string{DefaultEvictorName},
		wantConfigs:   []string{DefaultEvictorName},
		wantEvictArgs: fakeEvictorArgs{defaulted: true},
	}, {
		name: "sort and presort plugins get no pluginConfig (they have no effect)",
		policy: `
profiles:
- name: p
  plugins:
    sort: {enabled: [PodLifeTime]}
    presort: {enabled: [RemoveFailedPods]}`,
		wantFilter:    []string{DefaultEvictorName},
		wantPreEvict:  []string{DefaultEvictorName},
		wantConfigs:   []string{DefaultEvictorName},
		wantEvictArgs: fakeEvictorArgs{defaulted: true},
	}}
	reg := testRegistry(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prof := mustLoad(t, reg, tc.policy).Profiles[0]
			if !slices.Equal(prof.Plugins.Filter.Enabled, tc.wantFilter) {
				t.Errorf("filter.enabled = %v, want %v", prof.Plugins.Filter.Enabled, tc.wantFilter)
			}
			if !slices.Equal(prof.Plugins.PreEvictionFilter.Enabled, tc.wantPreEvict) {
				t.Errorf("preEvictionFilter.enabled = %v, want %v", prof.Plugins.PreEvictionFilter.Enabled, tc.wantPreEvict)
			}
			var names []string
			for _, pc := range prof.PluginConfig {
				names = append(names, pc.Name)
				if pc.Decoded == nil {
					t.Errorf("pluginConfig %s: Decoded is nil", pc.Name)
				}
				if pc.Name == DefaultEvictorName {
					if got := *pc.Decoded.(*fakeEvictorArgs); got != tc.wantEvictArgs {
						t.Errorf("DefaultEvictor args = %+v, want %+v", got, tc.wantEvictArgs)
					}
				}
			}
			if !slices.Equal(names, tc.wantConfigs) {
				t.Errorf("pluginConfig names = %v, want %v", names, tc.wantConfigs)
			}
		})
	}
}

func TestDefaultsSkipUnknownPlugins(t *testing.T) {
	// An unknown enabled plugin is reported once, at the plugins path; no
	// pluginConfig is invented for it (which would report it a second time).
	_, err := Load([]byte(`
profiles:
- name: p
  plugins:
    deschedule: {enabled: [Nope]}`), testRegistry(t))
	want := []string{`profiles[0].plugins.deschedule.enabled[0]: Unsupported value: "Nope": supported values: ` + registryNames}
	if d := diffLines(validationErrors(t, err), want); d != "" {
		t.Error(d)
	}
}
