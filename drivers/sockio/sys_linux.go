package sockio

import "syscall"

// msgNoSignal keeps a write to a closed connection from raising SIGPIPE.
const msgNoSignal = syscall.MSG_NOSIGNAL
