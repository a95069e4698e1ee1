package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// Block is one `do --- name <metadata>` test of LuaJIT's suite.
type Block struct {
	File     string // the file's path in the suite, slash-separated: "lang/assignment.lua"
	Index    int    // its position in the file, from 1
	Name     string // the marker's text before the metadata
	Meta     string // the metadata, inherited from the index lines above first
	Line     int    // the marker's line in the file
	Selected bool   // the metadata wants it under the plan's tags
	Deselect string // the term that deselected it ("+slow")
	PrivateG bool   // !private_G: it runs with a shallow copy of _G as globals
	Chunk    string // the standalone chunk: the file's prelude and the block
}

// ID names a block in tables, results and -run filters.
func (b Block) ID() string { return b.File + " --- " + b.Name }

// marker is a block's first line; the runner takes the rest of the line
// as the block's name and metadata.
var marker = regexp.MustCompile(`(?m)^do +--- +([^\r\n]+)`)

// scope is what an index line hands down to the entries under it.
type scope struct {
	meta     string // metadata of the enclosing index lines
	deselect string // set when an enclosing line deselected the subtree
	privateG bool
}

// LoadLuaJITSuite walks the suite from root (LuaJIT-test-cleanup's test/
// directory) through its index files, as the runner does, and splits every
// listed file into blocks. Entries their metadata does not want are still
// read when present, marked not selected, so that the tables can count them.
func LoadLuaJITSuite(root string, tags Tags) ([]Block, error) {
	var blocks []Block
	err := walkIndex(root, "", tags, scope{}, &blocks)
	return blocks, err
}

func walkIndex(root, dir string, tags Tags, sc scope, blocks *[]Block) error {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(dir), "index"))
	if err != nil {
		return err
	}
	defer f.Close()
	sn := bufio.NewScanner(f)
	for sn.Scan() {
		line := strings.TrimRight(sn.Text(), "\r")
		if line == "" {
			continue
		}
		name, meta, mods := splitInfo(line)
		sub, err := sc.enter(tags, meta, mods)
		if err != nil {
			return fmt.Errorf("%s: %w", path.Join(dir, "index"), err)
		}
		member := path.Join(dir, name)
		full := filepath.Join(root, filepath.FromSlash(member))
		if strings.HasSuffix(name, ".lua") {
			err = splitFile(root, member, tags, sub, blocks)
		} else if st, serr := os.Stat(full); serr == nil && st.IsDir() {
			err = walkIndex(root, member, tags, sub, blocks)
		} else if sub.deselect == "" {
			err = fmt.Errorf("%s lists %s, which is neither a .lua file nor a directory", path.Join(dir, "index"), name)
		}
		if err != nil {
			if sub.deselect != "" && errors.Is(err, fs.ErrNotExist) {
				continue // the runner never opens what it does not want
			}
			return err
		}
	}
	return sn.Err()
}

// enter applies one index line's or marker's metadata to a scope.
func (sc scope) enter(tags Tags, meta string, mods []string) (scope, error) {
	out := sc
	if meta != "" {
		out.meta = strings.TrimSpace(sc.meta + " " + strings.TrimSpace(meta))
	}
	if out.deselect == "" {
		ok, failing, err := tags.Want(meta)
		if err != nil {
			return out, err
		}
		if !ok {
			out.deselect = failing
		}
	}
	for _, m := range mods {
		switch m {
		case "private_G":
			out.privateG = true
		case "lex":
			// The runner comments an unwanted !lex block out so that it
			// need not parse; an unwanted block is never run here anyway.
		default:
			return out, fmt.Errorf("unsupported modifier !%s", m)
		}
	}
	return out, nil
}

// splitFile cuts one suite file into its prelude and blocks.
func splitFile(root, file string, tags Tags, sc scope, blocks *[]Block) error {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return err
	}
	bs, err := SplitBlocks(file, string(src), tags, sc)
	if err != nil {
		return err
	}
	*blocks = append(*blocks, bs...)
	return nil
}

// SplitBlocks cuts a suite file's text into blocks, each with its chunk.
// As in the runner, a block runs from its marker to the next marker (its
// closing `end` and any comment after it), and everything before the
// first marker is the prelude every block shares.
func SplitBlocks(file, src string, tags Tags, sc scope) ([]Block, error) {
	locs := marker.FindAllStringSubmatchIndex(src, -1)
	if len(locs) == 0 {
		return nil, fmt.Errorf("%s: no `do --- name` blocks", file)
	}
	prelude := src[:locs[0][0]]
	var out []Block
	for i, loc := range locs {
		end := len(src)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		name, meta, mods := splitInfo(src[loc[2]:loc[3]])
		bsc, err := sc.enter(tags, meta, mods)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, lineOf(src, loc[0]), err)
		}
		b := Block{
			File: file, Index: i + 1, Name: name, Meta: bsc.meta,
			Line: lineOf(src, loc[0]), Selected: bsc.deselect == "", Deselect: bsc.deselect,
			PrivateG: bsc.privateG,
		}
		// The blocks before this one become empty lines, so that the
		// chunk's lines keep their numbers in the file.
		gap := strings.Repeat("\n", strings.Count(src[len(prelude):loc[0]], "\n"))
		b.Chunk = blockChunk(prelude+gap, src[loc[1]:end], b.PrivateG)
		out = append(out, b)
	}
	return out, nil
}

func lineOf(src string, off int) int { return strings.Count(src[:off], "\n") + 1 }

// passLine is what a chunk prints last when it ran to its end; a chunk
// that exits early or quietly without it has not passed.
const passLine = "luasuite: pass"

// The harness's own names in a chunk, captured on the prelude's first line
// so that nothing the prelude or the block defines can shadow them.
const chunkHead = "local __luasuite_xpcall, __luasuite_traceback, __luasuite_error, __luasuite_print, " +
	"__luasuite_setfenv, __luasuite_setmetatable, __luasuite_G = " +
	"xpcall, debug.traceback, error, print, setfenv, setmetatable, _G; "

// blockChunk makes a block a chunk of its own that runs it as the runner
// does: the prelude, then the block as a function (its `do` becomes
// `function()`, so the prelude's locals are upvalues, as there), called
// under xpcall with a traceback; !private_G gives it a shallow copy of the
// globals. Lines keep their numbers in the file, so errors point at it.
func blockChunk(prelude, body string, privateG bool) string {
	var b bytes.Buffer
	b.WriteString(chunkHead)
	b.WriteString(prelude)
	b.WriteString("local __luasuite_block = function()")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteString("\n")
	}
	if privateG {
		b.WriteString("do local G = __luasuite_setmetatable({}, {__index = __luasuite_G}); G._G = G; " +
			"__luasuite_setfenv(__luasuite_block, G) end\n")
	}
	b.WriteString("local __luasuite_ok, __luasuite_err = __luasuite_xpcall(__luasuite_block, __luasuite_traceback)\n")
	b.WriteString("if not __luasuite_ok then __luasuite_error(__luasuite_err, 0) end\n")
	b.WriteString("__luasuite_print(\"" + passLine + "\")\n")
	return b.String()
}
