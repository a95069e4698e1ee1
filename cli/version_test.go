package cli

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/report"
)

// versionWordRE is a version number as the reference's banner ends with
// one: 2.1.0-beta3, 1.1.2 (and the parenthesis closing after it).
var versionWordRE = regexp.MustCompile(`^\d+(\.\d+)+(-[0-9A-Za-z.]+)?\)$`)

// TestBannerShape: the banner has the reference's words in their places
// (`sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)`), so a parser that
// splits it on spaces finds the API level as word 1 and a version as word
// 5; it is the same under either name.
func TestBannerShape(t *testing.T) {
	t.Parallel()
	out, _ := runCLI(t, "--events=1", "--cpu-max-prime=10", "cpu", "run")
	line, _, _ := strings.Cut(out, "\n")
	checkBannerWords(t, "ours", line)
	if line != banner() {
		t.Errorf("run banner %q, want %q", line, banner())
	}
	var buf bytes.Buffer
	Run(context.Background(), "/usr/local/bin/sysbench", []string{"--events=1", "--cpu-max-prime=10", "cpu", "run"}, strings.NewReader(""), &buf, &buf)
	if l, _, _ := strings.Cut(buf.String(), "\n"); l != line {
		t.Errorf("banner as sysbench %q differs from ours %q", l, line)
	}
	ref, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("no reference sysbench to compare the banner with")
	}
	b, err := exec.Command(ref, "--events=1", "--cpu-max-prime=10", "cpu", "run").Output()
	if err != nil || !strings.HasPrefix(string(b), "sysbench 1.0.20 (") {
		t.Skipf("%s is not sysbench 1.0.20: %v %q", ref, err, b)
	}
	refLine, _, _ := strings.Cut(string(b), "\n")
	checkBannerWords(t, "reference", refLine)
	rw, ow := strings.Fields(refLine), strings.Fields(line)
	if len(rw) != len(ow) || rw[0] != ow[0] || rw[1] != ow[1] || rw[2] != ow[2] {
		t.Errorf("banner %q does not have the reference's words in place: %q", line, refLine)
	}
}

func checkBannerWords(t *testing.T, who, line string) {
	t.Helper()
	w := strings.Fields(line)
	if len(w) != 6 || w[0] != "sysbench" || w[1] != APILevel || w[2] != "(using" || !versionWordRE.MatchString(w[5]) {
		t.Errorf("%s banner %q: want 6 words, sysbench %s (using ..., word 5 a version", who, line, APILevel)
	}
}

// TestVersionByName: run as `sysbench` (installed or linked under that
// name), --version is the reference's answer, as sysbench's own opt_version
// test expects; under our own name it says which build this is, then the
// banner.
func TestVersionByName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		argv0, want string
	}{
		{"sysbench", "^sysbench 1\\.0\\.20\n$"},
		{"/usr/bin/sysbench", "^sysbench 1\\.0\\.20\n$"},
		{"./sysbench", "^sysbench 1\\.0\\.20\n$"},
		{"sysbench-go", `^sysbench-go \d+\.\d+\.\d+\S* \((commit [0-9a-f]+(\+dirty)?, )?(\S+, )?go1\.[^ ,]+, [a-z0-9]+/[a-z0-9]+\)\n` + regexp.QuoteMeta(banner()) + "\n$"},
		{"/opt/bin/sysbench-go", `^sysbench-go `},
		{"sysbench.real", `^sysbench-go `},
	} {
		var out, errb bytes.Buffer
		code := Run(context.Background(), tc.argv0, []string{"--version"}, strings.NewReader(""), &out, &errb)
		if code != 0 || errb.Len() > 0 || !regexp.MustCompile(tc.want).MatchString(out.String()) {
			t.Errorf("%s --version: exit %d, %q %q; want %s", tc.argv0, code, out.String(), errb.String(), tc.want)
		}
	}
}

// TestBuildStamp: make's -ldflags values win over what the toolchain
// recorded; without them the version is at least ours.
func TestBuildStamp(t *testing.T) {
	// Not in parallel: it sets the package's build stamp, which every run
	// reads.
	if b := currentBuild(); b.Version == "" {
		t.Errorf("no version: %+v", b)
	}
	defer func(v, c, d string) { buildVersion, buildCommit, buildDate = v, c, d }(buildVersion, buildCommit, buildDate)
	buildVersion, buildCommit, buildDate = "v9.8.7", "0123abcd", "2026-01-02T03:04:05Z"
	b := currentBuild()
	if b != (buildInfo{Version: "9.8.7", Commit: "0123abcd", Date: "2026-01-02T03:04:05Z"}) {
		t.Errorf("stamped build: %+v", b)
	}
	if got := versionText(false); !strings.HasPrefix(got, "sysbench-go 9.8.7 (commit 0123abcd, 2026-01-02T03:04:05Z, go") {
		t.Errorf("--version: %q", got)
	}
	// The results file records the same build.
	path := filepath.Join(t.TempDir(), "r.json")
	if out, code := runCLI(t, "--events=1", "--cpu-max-prime=10", "--results="+path, "cpu", "run"); code != 0 {
		t.Fatalf("run: %d\n%s", code, out)
	}
	tool := readResults(t, path).Tool
	if tool != (report.Tool{Name: "sysbench-go", Version: "9.8.7", API: "sysbench 1.0.20", Lua: LuaVersion, Commit: "0123abcd", BuildDate: "2026-01-02T03:04:05Z"}) {
		t.Errorf("results file's tool: %+v", tool)
	}
}
