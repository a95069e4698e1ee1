package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadLuaJITSuite(t *testing.T) {
	blocks, err := LoadLuaJITSuite("testdata/luajit", luajit21Tags())
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		selected bool
		deselect string
		privateG bool
		meta     string
	}
	wants := map[string]want{
		"lang/basic.lua --- passes":                     {selected: true},
		"lang/basic.lua --- fails on an assertion":      {selected: true},
		"lang/basic.lua --- has a prelude of its own 1": {selected: true},
		"lang/basic.lua --- has a prelude of its own 2": {selected: true},
		"lang/basic.lua --- returns early":              {selected: true},
		"lang/basic.lua --- only from LuaJIT 2.1 on":    {selected: true, meta: "+luajit>=2.1"},
		"lang/basic.lua --- only under Lua 5.2":         {deselect: "+lua>=5.2", meta: "+lua>=5.2"},
		"lang/basic.lua --- never under LuaJIT":         {deselect: "-luajit", meta: "-luajit"},
		"lang/globals.lua --- writes a global":          {selected: true, privateG: true, meta: "!private_G"},
		"lang/globals.lua --- sees the real globals":    {selected: true},
		"lib/bits.lua --- band":                         {selected: true, meta: "+bit"}, // from lib's index line
		"slow.lua --- never ends":                       {deselect: "+slow", meta: "+slow"},
		"newer.lua --- from a later LuaJIT":             {deselect: "+luajit>=2.2", meta: "+luajit>=2.2"},
	}
	if len(blocks) != len(wants) {
		t.Errorf("%d blocks, want %d", len(blocks), len(wants))
	}
	for _, b := range blocks {
		w, ok := wants[b.ID()]
		if !ok {
			t.Errorf("unexpected block %q", b.ID())
			continue
		}
		if b.Selected != w.selected || b.Deselect != w.deselect || b.PrivateG != w.privateG || b.Meta != w.meta {
			t.Errorf("%s: selected %v by %q, private_G %v, meta %q; want %v by %q, %v, %q",
				b.ID(), b.Selected, b.Deselect, b.PrivateG, b.Meta, w.selected, w.deselect, w.privateG, w.meta)
		}
	}
}

// TestBlockChunk checks what a block's chunk holds: the prelude, the block
// as a function at its own line, none of the other blocks, and the
// harness's call at the end.
func TestBlockChunk(t *testing.T) {
	src, err := os.ReadFile("testdata/luajit/lang/basic.lua")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := SplitBlocks("lang/basic.lua", string(src), luajit21Tags(), scope{})
	if err != nil {
		t.Fatal(err)
	}
	fileLines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	for _, b := range blocks {
		lines := strings.Split(b.Chunk, "\n")
		if !strings.HasPrefix(lines[0], chunkHead) || !strings.HasSuffix(lines[0], fileLines[0]) {
			t.Errorf("%s: line 1 is %q, want the harness's names then the file's first line", b.Name, lines[0])
		}
		if !strings.Contains(b.Chunk, `local helper = require "common.helper"`) {
			t.Errorf("%s: the prelude is missing", b.Name)
		}
		if lines[b.Line-1] != "local __luasuite_block = function()" {
			t.Errorf("%s: line %d is %q, want the block's start", b.Name, b.Line, lines[b.Line-1])
		}
		// Every line of the block is at its line in the file.
		for i := b.Line; i < len(fileLines) && !strings.HasPrefix(fileLines[i], "do --- "); i++ {
			if lines[i] != fileLines[i] {
				t.Errorf("%s: line %d is %q, the file's is %q", b.Name, i+1, lines[i], fileLines[i])
			}
		}
		if strings.Count(b.Chunk, "do --- ") != 0 || strings.Count(b.Chunk, "assert(add(1, 2)") > 1 {
			t.Errorf("%s: the chunk holds other blocks:\n%s", b.Name, b.Chunk)
		}
		if !strings.HasSuffix(b.Chunk, `__luasuite_print("`+passLine+"\")\n") {
			t.Errorf("%s: the chunk does not end with the pass line", b.Name)
		}
	}
	priv, err := SplitBlocks("g.lua", "do --- g !private_G\n  x = 1\nend\n", luajit21Tags(), scope{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(priv[0].Chunk, "__luasuite_setfenv(__luasuite_block, G)") {
		t.Errorf("a !private_G block's chunk sets no environment:\n%s", priv[0].Chunk)
	}
}

func TestSuiteErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"unknown modifier", map[string]string{"index": "a.lua\n", "a.lua": "do --- x !sandbox\nend\n"},
			"unsupported modifier !sandbox"},
		{"no blocks", map[string]string{"index": "a.lua\n", "a.lua": "local x = 1\n"},
			"a.lua: no `do --- name` blocks"},
		{"missing file", map[string]string{"index": "a.lua\n"}, "a.lua"},
		{"not a file nor a directory", map[string]string{"index": "notes.txt\n", "notes.txt": "x"},
			"neither a .lua file nor a directory"},
		{"no index", map[string]string{"a.lua": "do --- x\nend\n"}, "index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadLuaJITSuite(dir, luajit21Tags())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	// What the metadata does not want need not exist, as in the runner.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index"), []byte("gone.lua +nosuchtag\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if blocks, err := LoadLuaJITSuite(dir, luajit21Tags()); err != nil || len(blocks) != 0 {
		t.Errorf("a deselected missing file: %d blocks, %v; want none and no error", len(blocks), err)
	}
}

func TestLoadLua51Suite(t *testing.T) {
	cases, err := LoadLua51Suite("testdata/lua51")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Lua51Case{}
	for _, c := range cases {
		got[c.File] = c
	}
	if len(got) != 6 {
		t.Errorf("%d files, want 6", len(got))
	}
	for _, name := range []string{"all.lua", "main.lua"} {
		if got[name].Skip == "" || got[name].Chunk != "" {
			t.Errorf("%s is not skipped with a reason", name)
		}
	}
	if c := got["events.lua"].Chunk; !strings.Contains(c, `assert(dofile("events.lua") == 12)`) {
		t.Errorf("events.lua runs as %q, not as all.lua runs it", c)
	}
	if c := got["plain.lua"].Chunk; !strings.HasPrefix(c, `dofile("plain.lua")`) || !strings.HasSuffix(c, passLine+"\")\n") {
		t.Errorf("plain.lua runs as %q", c)
	}
}

func TestNotPromised(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range notPromised {
		if e.Category != "jit" && e.Category != "ffi" {
			t.Errorf("%s: category %q, want jit or ffi", e.Match, e.Category)
		}
		if e.Reason == "" {
			t.Errorf("%s: no reason", e.Match)
		}
		if seen[e.Match] {
			t.Errorf("%s: listed twice", e.Match)
		}
		seen[e.Match] = true
	}
	tests := []struct {
		match, file, name string
		want              bool
	}{
		{"lib/ffi", "lib/ffi/jit_struct.lua", "union", true},
		{"lib/ffi", "lib/ffi2/x.lua", "union", false},
		{"lib/ffi/jit_struct.lua", "lib/ffi/jit_struct.lua", "union", true},
		{"lib/ffi/jit_struct.lua", "lib/ffi/jit_array.lua", "union", false},
		{"lib/ffi/istype.lua --- 3", "lib/ffi/istype.lua", "3", true},
		{"lib/ffi/istype.lua --- 3", "lib/ffi/istype.lua", "30", false},
	}
	for _, tt := range tests {
		if got := (NotPromised{Match: tt.match}).matches(tt.file, tt.name); got != tt.want {
			t.Errorf("%q matches %s --- %s: %v, want %v", tt.match, tt.file, tt.name, got, tt.want)
		}
	}
}
