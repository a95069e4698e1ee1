//go:build race

package cli

// raceEnabled: the race detector slows the long tests down some tenfold.
const raceEnabled = true
