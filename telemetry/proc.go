package telemetry

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The server's processes, found in /proc (Linux): the process listening
// on the server's port or socket, and its children (PostgreSQL's
// backends).

// listenerPID finds the process listening on TCP port (IPv4 or IPv6) or
// on the Unix socket path; 0 when none is found on this machine.
func listenerPID(port int, socket string) int {
	var inodes map[string]bool
	if socket != "" {
		inodes = unixInodes(socket)
	} else {
		inodes = tcpListenInodes(port)
	}
	if len(inodes) == 0 {
		return 0
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, _ := os.ReadDir(filepath.Join(p, "fd"))
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p, "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				pid, _ := strconv.Atoi(filepath.Base(p))
				return pid
			}
		}
	}
	return 0
}

// tcpListenInodes are the inodes of sockets listening on port.
func tcpListenInodes(port int) map[string]bool {
	out := map[string]bool{}
	want := fmt.Sprintf(":%04X", port)
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		lines := readLines(f)
		for _, l := range lines[min(1, len(lines)):] {
			fs := strings.Fields(l)
			// local_address is fs[1], st fs[3] (0A: LISTEN), inode fs[9].
			if len(fs) > 9 && strings.HasSuffix(fs[1], want) && fs[3] == "0A" {
				out[fs[9]] = true
			}
		}
	}
	return out
}

// unixInodes are the inodes of the listening sockets bound to path (a
// socket file, or a PostgreSQL socket directory).
func unixInodes(path string) map[string]bool {
	out := map[string]bool{}
	lines := readLines("/proc/net/unix")
	for _, l := range lines[min(1, len(lines)):] {
		fs := strings.Fields(l)
		if len(fs) < 8 {
			continue
		}
		p := fs[7]
		if p == path || strings.HasPrefix(p, strings.TrimSuffix(path, "/")+"/.s.PGSQL.") {
			out[fs[6]] = true
		}
	}
	return out
}

func readLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// procStat is one process's parent, thread count and CPU time (clock
// ticks, the 10 ms units of /proc/PID/stat).
type procStat struct {
	ppid    int
	threads int
	ticks   uint64
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	// The command may hold spaces and parentheses: fields follow the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	fs := strings.Fields(s[i+1:])
	if len(fs) < 18 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(fs[1])
	ut, _ := strconv.ParseUint(fs[11], 10, 64)
	st, _ := strconv.ParseUint(fs[12], 10, 64)
	threads, _ := strconv.Atoi(fs[17])
	return procStat{ppid: ppid, threads: threads, ticks: ut + st}, true
}

// cpuTime is a process's CPU time in nanoseconds. A single-threaded
// process (each of PostgreSQL's) is read to the nanosecond from
// /proc/PID/schedstat: in 10 ms ticks a lightly loaded backend reads
// zero second after second, and a server that works little would show
// none at all. A multi-threaded one (mysqld) is read in ticks from its
// stat, which alone holds the time of threads that have ended.
func cpuTime(pid int, st procStat) uint64 {
	if st.threads == 1 {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				if ns, err := strconv.ParseUint(f[0], 10, 64); err == nil {
					return ns
				}
			}
		}
	}
	return st.ticks * (1e9 / clockTicks)
}

// memory is a process's proportional set size in bytes (shared pages
// divided among the processes that map them, so PostgreSQL's shared
// buffers count once over its backends), or its RSS where PSS cannot be
// read.
func memory(pid int) uint64 {
	for _, l := range readLines(fmt.Sprintf("/proc/%d/smaps_rollup", pid)) {
		if v, ok := strings.CutPrefix(l, "Pss:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	fs := strings.Fields(string(b))
	if len(fs) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(fs[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// processTree is the server process and its children: pid -> CPU time
// (nanoseconds).
func processTree(root int) map[int]uint64 {
	out := map[int]uint64{}
	st, ok := readStat(root)
	if !ok {
		return out
	}
	out[root] = cpuTime(root, st)
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || pid == root {
			continue
		}
		if s, ok := readStat(pid); ok && s.ppid == root {
			out[pid] = cpuTime(pid, s)
		}
	}
	return out
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux architecture Go runs on.
const clockTicks = 100
