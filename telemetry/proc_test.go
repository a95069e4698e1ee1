package telemetry

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func requireProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the server's processes are found in Linux's /proc")
	}
}

// The process listening on a TCP port or a Unix socket is found: here,
// this test's own listeners.
func TestListenerPID(t *testing.T) {
	requireProc(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if pid := listenerPID(l.Addr().(*net.TCPAddr).Port, ""); pid != os.Getpid() {
		t.Errorf("TCP: pid %d, want %d", pid, os.Getpid())
	}
	sock := filepath.Join(t.TempDir(), "s.sock")
	u, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if pid := listenerPID(0, sock); pid != os.Getpid() {
		t.Errorf("Unix socket: pid %d, want %d", pid, os.Getpid())
	}
	l.Close()
	if pid := listenerPID(l.Addr().(*net.TCPAddr).Port, ""); pid != 0 {
		t.Errorf("a closed port: pid %d", pid)
	}
}

// A process tree is the process and its children, with their CPU times;
// memory is read for each.
func TestProcessTree(t *testing.T) {
	requireProc(t)
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer child.Process.Kill()
	tree := processTree(os.Getpid())
	if _, ok := tree[os.Getpid()]; !ok {
		t.Fatalf("the tree %v lacks its root", tree)
	}
	if _, ok := tree[child.Process.Pid]; !ok {
		t.Errorf("the tree %v lacks the child %d", tree, child.Process.Pid)
	}
	// A single-threaded process is read to the nanosecond: the child has
	// used far less than the 10 ms tick of /proc/PID/stat, and it shows.
	if _, err := os.Stat(fmt.Sprintf("/proc/%d/schedstat", child.Process.Pid)); err == nil && tree[child.Process.Pid] == 0 {
		t.Errorf("the child's CPU time reads 0 ns (/proc/%d/schedstat: precise time not used)", child.Process.Pid)
	}
	if m := memory(os.Getpid()); m < 1<<20 {
		t.Errorf("memory of this process: %d bytes", m)
	}
	if len(processTree(1<<30)) != 0 {
		t.Error("a process that does not exist has a tree")
	}
}

// A CPU sample taken right after the last one, or before it (the window's
// start racing the sampling ticker), is not a sample: the server's CPU is
// never negative or inflated by a near-zero span.
func TestCPUSampleSpan(t *testing.T) {
	requireProc(t)
	s := &Sampler{pid: os.Getpid(), noted: map[string]bool{}}
	t0 := time.Now()
	s.sampleProcesses(t0, false)
	for i := 0; i < 2e7; i++ { // some CPU time of this process
		_ = i * i
	}
	s.sampleProcesses(t0.Add(-time.Millisecond), false)
	s.sampleProcesses(t0.Add(time.Millisecond), false)
	if s.cpu.Samples != 0 {
		t.Fatalf("%d samples over spans under %v, avg %.1f%%", s.cpu.Samples, minCPUSample, s.cpu.AvgPct)
	}
	s.sampleProcesses(t0.Add(time.Second), false)
	if s.cpu.Samples != 1 || s.cpu.AvgPct < 0 {
		t.Fatalf("after a second: %d samples, avg %.1f%%", s.cpu.Samples, s.cpu.AvgPct)
	}
}
