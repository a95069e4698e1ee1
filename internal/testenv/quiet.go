package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// QuietServer returns the kind server of the quiet pair that make test
// starts beside the shared one (scripts/test.sh, SBTEST_QUIET_*), held for
// this test alone until it ends. A test that reads a server's whole
// counters (redo and WAL bytes, the sum over its databases, its sessions)
// runs there: no other test's tables, databases or sessions move them, in
// this test binary or another (the hold is a lock on a file beside the
// server's socket, which every process of the suite takes). The test skips
// (fails under CI=true) when there is no quiet server.
func QuietServer(t testing.TB, kind string) Server {
	t.Helper()
	s, ok := Lookup(kind, func(key string) string { return os.Getenv("SBTEST_QUIET_" + key) })
	if !ok || s.Socket == "" {
		Unavailable(t, fmt.Sprintf("no quiet %s server: SBTEST_QUIET_%s_HOST or _SOCKET is not set "+
			"(make test starts one; or SBTEST_ENV_PREFIX=SBTEST_QUIET_ with ports of its own: scripts/testdb.sh start DIR and . DIR/env)",
			serverNames[kind], strings.ToUpper(kind)))
	}
	// The socket's directory is the server's own (DIR/mysql, DIR/pg).
	dir := s.Socket
	if kind == "mysql" {
		dir = filepath.Dir(s.Socket)
	}
	f, err := os.OpenFile(filepath.Join(dir, "quiet.lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("quiet %s server: %v", serverNames[kind], err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("quiet %s server: lock: %v", serverNames[kind], err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
	return s
}
