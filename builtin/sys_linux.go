package builtin

import "syscall"

// What the built-in tests take from Linux that other systems spell
// differently or lack (sys_darwin.go).
const (
	oDirect    = syscall.O_DIRECT
	mapHugeTLB = syscall.MAP_HUGETLB
)

func fdatasync(fd int) error { return syscall.Fdatasync(fd) }

// schedYield gives up the CPU to another runnable OS thread. It goes
// through syscall.Syscall, not RawSyscall, so the Go scheduler can hand
// this thread's P to another goroutine if the kernel keeps it off the CPU.
func schedYield() { _, _, _ = syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
