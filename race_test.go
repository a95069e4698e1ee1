//go:build race

package main

// raceEnabled: the race detector slows the long tests down some tenfold.
const raceEnabled = true
