package sockio

// msgNoSignal: macOS has no MSG_NOSIGNAL; the Go runtime already turns a
// SIGPIPE on a socket (any descriptor but standard output and error) into
// an EPIPE error.
const msgNoSignal = 0
