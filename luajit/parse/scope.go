package parse

import "fmt"

// LuaJIT's limits that a parser (rather than its code generator) meets.
const (
	maxLevels   = 200           // LJ_MAX_XLEVEL: syntactic nesting
	maxLocals   = 200           // LJ_MAX_LOCVAR: active locals of one function
	maxUpvalues = 60            // LJ_MAX_UPVAL
	maxVarStack = 65536 - 60    // LJ_MAX_VSTACK: locals, gotos and labels of the open functions
	breakName   = "break"       // a break is a goto to this label; no label can have the name
	hiddenName  = ""            // for-loop control variables: no name matches them
	scopeLoop   = uint8(1 << 0) // the block is a loop: breaks end here
	scopeBreak  = uint8(1 << 1) // a break is pending in the block
	scopeGoto   = uint8(1 << 2) // a goto or label is in the block
)

// funcState is what LuaJIT tracks of a function while parsing it that
// decides whether it loads: its locals, upvalues, blocks, gotos and labels.
// The code it would generate is gopher-lua's business.
type funcState struct {
	prev        *funcState
	lineDefined int // 0 for the main chunk
	vararg      bool
	nactvar     int
	active      []*localVar // by slot; entries past nactvar are declared, not yet active
	upvalues    []*localVar
	blocks      []blockScope
	golas       []gola // gotos and labels, in source order
	vbase       int    // the parser's vtop when the function began
}

type localVar struct{ name string }

type blockScope struct {
	nactvar int // active locals when the block began
	vstart  int // first of fs.golas that belongs to the block
	flags   uint8
}

// gola is a pending goto (or break) or a visible label.
type gola struct {
	name  string
	label bool
	dead  bool // resolved goto, or label out of scope
	slot  int  // active locals at the goto or label
	line  int  // where a goto's error is reported
}

func (p *parser) failAt(line int, msg string) {
	panic(&SyntaxError{Chunk: p.chunk, Line: line, Message: msg})
}

// limit reports fs exceeding one of LuaJIT's limits.
func (p *parser) limit(fs *funcState, max int, what string) {
	if fs.lineDefined == 0 {
		p.failAt(p.line, fmt.Sprintf("main function has more than %d %s", max, what))
	}
	p.failAt(p.line, fmt.Sprintf("function at line %d has more than %d %s", fs.lineDefined, max, what))
}

func (p *parser) growVarStack() {
	if p.vtop >= maxVarStack {
		p.failAt(p.line, fmt.Sprintf("chunk has more than %d local variables", maxVarStack))
	}
	p.vtop++
}

// varNew declares the n-th local of a declaration being parsed.
func (p *parser) varNew(n int, name string) {
	fs := p.fs
	if fs.nactvar+n >= maxLocals {
		p.limit(fs, maxLocals, "local variables")
	}
	p.growVarStack()
	fs.active = append(fs.active[:fs.nactvar+n], &localVar{name: name})
}

// varAdd makes the n declared locals visible.
func (p *parser) varAdd(n int) { p.fs.nactvar += n }

// resolve looks a name up as LuaJIT does, counting the upvalues it makes.
func (p *parser) resolve(fs *funcState, name string) *localVar {
	if fs == nil {
		return nil // a global
	}
	for i := fs.nactvar - 1; i >= 0; i-- {
		if v := fs.active[i]; v.name == name {
			return v
		}
	}
	v := p.resolve(fs.prev, name)
	if v == nil {
		return nil
	}
	for _, u := range fs.upvalues {
		if u == v {
			return v
		}
	}
	if len(fs.upvalues) >= maxUpvalues {
		p.limit(fs, maxUpvalues, "upvalues")
	}
	fs.upvalues = append(fs.upvalues, v)
	return v
}

func (p *parser) scopeBegin(flags uint8) {
	fs := p.fs
	fs.blocks = append(fs.blocks, blockScope{nactvar: fs.nactvar, vstart: len(fs.golas), flags: flags})
}

// scopeEnd closes the innermost block: its locals go, its breaks and
// gotos resolve or move to the enclosing block.
func (p *parser) scopeEnd() {
	fs := p.fs
	b := len(fs.blocks) - 1
	bl := fs.blocks[b]
	fs.nactvar = bl.nactvar
	fs.active = fs.active[:bl.nactvar]
	if bl.flags&scopeBreak != 0 && bl.flags&scopeLoop == 0 {
		p.golaFixup(b) // moves the breaks out with the gotos
	} else {
		if bl.flags&scopeBreak != 0 {
			idx := p.golaNew(breakName, true, fs.nactvar, 0)
			p.vtop-- // LuaJIT drops the loop's break label at once
			p.golaResolve(b, idx)
			fs.golas = fs.golas[:idx]
		}
		if bl.flags&scopeGoto != 0 {
			p.golaFixup(b)
		}
	}
	fs.blocks = fs.blocks[:b]
}

func (p *parser) golaNew(name string, label bool, slot, line int) int {
	p.growVarStack()
	fs := p.fs
	fs.golas = append(fs.golas, gola{name: name, label: label, slot: slot, line: line})
	return len(fs.golas) - 1
}

// golaResolve resolves the block's pending forward gotos to label idx.
func (p *parser) golaResolve(b, idx int) {
	fs := p.fs
	vl := fs.golas[idx]
	for i := fs.blocks[b].vstart; i < idx; i++ {
		vg := &fs.golas[i]
		if vg.dead || vg.label || vg.name != vl.name {
			continue
		}
		if vg.slot < vl.slot {
			p.failAt(vg.line, fmt.Sprintf("<goto %s> jumps into the scope of local '%s'", vg.name, fs.active[vg.slot].name))
		}
		vg.dead = true
	}
}

// golaFixup ends the block's labels, resolving the backward gotos to them,
// and moves its other pending gotos out, or fails if it is the function's
// outermost block.
func (p *parser) golaFixup(b int) {
	fs := p.fs
	bl := fs.blocks[b]
	for i := bl.vstart; i < len(fs.golas); i++ {
		v := &fs.golas[i]
		if v.dead {
			continue
		}
		if v.label {
			v.dead = true
			for j := i + 1; j < len(fs.golas); j++ {
				if vg := &fs.golas[j]; !vg.dead && !vg.label && vg.name == v.name {
					vg.dead = true
				}
			}
			continue
		}
		switch {
		case b > 0:
			if v.name == breakName {
				fs.blocks[b-1].flags |= scopeBreak
			} else {
				fs.blocks[b-1].flags |= scopeGoto
			}
			v.slot = bl.nactvar
		case v.name == breakName:
			p.failAt(v.line, "no loop to break")
		default:
			p.failAt(v.line, fmt.Sprintf("undefined label '%s'", v.name))
		}
	}
}

func (p *parser) findLabel(name string) bool {
	fs := p.fs
	for i := fs.blocks[len(fs.blocks)-1].vstart; i < len(fs.golas); i++ {
		if v := &fs.golas[i]; !v.dead && v.label && v.name == name {
			return true
		}
	}
	return false
}

// openFunction starts a function body; line is the line LuaJIT names it by.
func (p *parser) openFunction(line int) *funcState {
	fs := &funcState{prev: p.fs, lineDefined: line, vbase: p.vtop}
	p.fs = fs
	p.scopeBegin(0)
	return fs
}

// closeFunction ends the function's outermost block, which reports its
// undefined labels and stray breaks.
func (p *parser) closeFunction() {
	fs := p.fs
	p.scopeEnd()
	p.vtop = fs.vbase
	p.fs = fs.prev
}
