package metrics

import (
	"regexp"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// BuildInfo describes the running binary. Its fields become the labels of
// descheduler_build_info, spelled as upstream spells them (GoVersion,
// AppVersion, DeschedulerVersion, GitBranch, GitSha1) so that upstream's
// dashboards read them unchanged.
type BuildInfo struct {
	// Version is the descheduler's version (git describe, e.g. v0.36.0-4-gabc).
	Version string
	// GitBranch is the branch the binary was built from; "" when unknown.
	GitBranch string
	// GitSha1 is the commit the binary was built from; "" when unknown.
	GitSha1 string
	// GoVersion is the Go toolchain's version.
	GoVersion string
}

// appVersion matches the major and minor parts of a version such as v0.36.0.
var appVersion = regexp.MustCompile(`^v?(\d+)\.(\d+)`)

// AppVersion returns "major.minor" of Version (upstream's AppVersion
// label), or "" when Version does not start with a semantic version.
func (b BuildInfo) AppVersion() string {
	m := appVersion.FindStringSubmatch(b.Version)
	if m == nil {
		return ""
	}
	return m[1] + "." + m[2]
}

// labels returns the constant labels of descheduler_build_info.
func (b BuildInfo) labels() prometheus.Labels {
	return prometheus.Labels{
		"GoVersion":          b.GoVersion,
		"AppVersion":         b.AppVersion(),
		"DeschedulerVersion": b.Version,
		"GitBranch":          b.GitBranch,
		"GitSha1":            b.GitSha1,
	}
}

// CurrentBuildInfo returns the build info of this binary: version, branch
// and commit as given (set at link time; an empty commit is taken from the
// Go toolchain's embedded VCS stamp when there is one) and the Go version.
func CurrentBuildInfo(version, branch, sha string) BuildInfo {
	b := BuildInfo{Version: version, GitBranch: branch, GitSha1: sha, GoVersion: runtime.Version()}
	if info, ok := debug.ReadBuildInfo(); ok && b.GitSha1 == "" {
		b.GitSha1 = vcsRevision(info.Settings)
	}
	return b
}

// vcsRevision returns the vcs.revision build setting, or "".
func vcsRevision(settings []debug.BuildSetting) string {
	for _, s := range settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return ""
}
