package builtin

import (
	"runtime"
	"syscall"
)

// macOS has no O_DIRECT and no HugeTLB mappings: the options that ask for
// them are refused (0 says "not available").
const (
	oDirect    = 0
	mapHugeTLB = 0
)

// fdatasync: macOS has no fdatasync(2); fsync is what its libc does too.
func fdatasync(fd int) error { return syscall.Fsync(fd) }

// schedYield: macOS has no sched_yield system call of its own (libc's
// goes through a Mach trap); the goroutine yields instead.
func schedYield() { runtime.Gosched() }
