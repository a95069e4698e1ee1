package cli

import (
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is our own version, for builds that carry no better one (a
// build from a tagged module or make's -ldflags says which one it is);
// APILevel is the sysbench whose command line, Lua API and reports we
// implement.
const (
	Version    = "0.2.0"
	APILevel   = "1.0.20"
	LuaVersion = "gopher-lua 1.1.2"
)

// Set by `make` (-ldflags -X .../cli.buildVersion=...): a build from a
// checkout whose VCS information `go build` may not record (-buildvcs=false,
// a tarball) still says which commit it is.
var buildVersion, buildCommit, buildDate string

// buildInfo says which build of sysbench-go this is.
type buildInfo struct {
	Version string // without a leading "v"
	Commit  string // "" when unknown; "+dirty" when built with local changes
	Date    string // the commit's time (RFC 3339): reproducible, unlike the clock's
}

// currentBuild reads the build's stamp: make's -ldflags first, then what
// the Go toolchain recorded (the module version of a `go install
// ...@vX.Y.Z`, the VCS revision and time of a build in a checkout).
func currentBuild() buildInfo {
	b := buildInfo{Version: Version}
	info, ok := debug.ReadBuildInfo()
	if ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			b.Version = strings.TrimPrefix(v, "v")
		}
		dirty := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.time":
				b.Date = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && b.Commit != "" {
			b.Commit += "+dirty"
		}
	}
	if buildVersion != "" {
		b.Version = strings.TrimPrefix(buildVersion, "v")
	}
	if buildCommit != "" {
		b.Commit = buildCommit
	}
	if buildDate != "" {
		b.Date = buildDate
	}
	return b
}

// banner is the line every run begins with, in the reference's shape word
// for word (`sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)`), so that
// a parser splitting it on spaces finds the API level as word 1 and the
// Lua engine's version as word 5.
func banner() string {
	return fmt.Sprintf("sysbench %s (using bundled %s)", APILevel, LuaVersion)
}

// versionText is --version's answer: run as `sysbench` (installed or
// linked under that name), the reference's own, so that scripts and test
// suites that check it pass; under our own name, which build this is,
// then the banner.
func versionText(dropIn bool) string {
	if dropIn {
		return "sysbench " + APILevel + "\n"
	}
	b := currentBuild()
	details := []string{}
	if b.Commit != "" {
		details = append(details, "commit "+b.Commit)
	}
	if b.Date != "" {
		details = append(details, b.Date)
	}
	details = append(details, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("sysbench-go %s (%s)\n%s\n", b.Version, strings.Join(details, ", "), banner())
}

// dropInName reports whether the program runs under the reference's name.
func dropInName(argv0 string) bool {
	return strings.TrimSuffix(filepath.Base(argv0), ".exe") == "sysbench"
}
