package cli

import (
	"os"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether f is a terminal (the reference then tells the
// user it waits for a script on standard input).
func isTerminal(f *os.File) bool { return isatty.IsTerminal(f.Fd()) }
