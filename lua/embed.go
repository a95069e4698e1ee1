// Package lua embeds the bundled workload scripts.
package lua

import "embed"

// Scripts holds every bundled .lua file at its root.
//
//go:embed *.lua
var Scripts embed.FS
