package builtin

import "syscall"

// What the built-in tests take from Linux that other systems spell
// differently or lack (sys_darwin.go).
const (
	oDirect    = syscall.O_DIRECT
	mapHugeTLB = syscall.MAP_HUGETLB
)

func fdatasync(fd int) error { return syscall.Fdatasync(fd) }

// schedYield gives up the CPU to another runnable OS thread, the system
// call alone as the reference's: no hand-over of the thread's processor
// around it (RawSyscall), which the reference's thread does not pay for.
// Each worker of a built-in test has a processor of its own
// (engine.Config.BlockingWorkers) and the call returns at once or when
// the kernel runs the thread again, so no goroutine waits for it.
func schedYield() { _, _, _ = syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
