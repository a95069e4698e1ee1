package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// The pure-Lua kernels of make bench (testdata/lua-kernels), scaled down,
// print under our binary the checksum line they print under LuaJIT: the
// bench times them side by side only as long as they compute the same.
func TestLuaKernelsMatchLuaJIT(t *testing.T) {
	luajit := testenv.Tool(t, "luajit", "apt-get install luajit")
	bin := testenv.Binary(t)
	kernels, err := filepath.Glob("testdata/lua-kernels/*.lua")
	if err != nil || len(kernels) == 0 {
		t.Fatalf("no kernels in testdata/lua-kernels (%v)", err)
	}
	// The smallest scale: every kernel runs its work once, in well under a
	// second.
	env := append(os.Environ(), "LUA_KERNEL_SCALE=0.01")
	for _, k := range kernels {
		name := strings.TrimSuffix(filepath.Base(k), ".lua")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checksum := func(cmd ...string) string {
				c := exec.Command(cmd[0], cmd[1:]...)
				c.Env = env
				out, err := c.Output()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(cmd, " "), err, out)
				}
				var line string
				for _, l := range strings.Split(string(out), "\n") {
					if strings.HasPrefix(l, name+" ") {
						line = l
					}
				}
				if line == "" {
					t.Fatalf("%s printed no checksum line:\n%s", strings.Join(cmd, " "), out)
				}
				return line
			}
			want := checksum(luajit, k)
			if got := checksum(bin, k); got != want {
				t.Errorf("ours: %q\nluajit: %q", got, want)
			}
		})
	}
}
