//go:build !unix

package cli

import "os"

// terminalWidth is 0: unknown here.
func terminalWidth(*os.File) int { return 0 }
