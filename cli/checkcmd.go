package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sysbench-go/sysbench-go/authoring"
	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/options"
)

// checkOptions are check's options.
var checkOptions = []options.Option{
	{Name: "format", Desc: "text (file:line:column: message [kind], one line per finding) or json (one document: docs/writing-workloads.md)", Kind: options.String, Default: "text"},
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

// CheckCouldNotRun is check's exit status when a script could not be
// checked (not found, unreadable) or the command line is wrong: 0 says
// nothing was found, 1 that something was.
const CheckCouldNotRun = 2

// checkCommand checks scripts before a server is touched.
func (p *program) checkCommand(args []string) int {
	values, names, ok := p.commandArgs(checkOptions, args)
	switch {
	case !ok:
		return CheckCouldNotRun
	case values.Bool("help"):
		printCheckHelp(p.log.Out(), p.name())
		return 0
	case len(names) == 0:
		fmt.Fprintf(p.stderr, "FATAL: check: no script given (usage: %s check [--format=json] SCRIPT...)\n", p.name())
		return CheckCouldNotRun
	}
	format := values.String("format")
	if format != "text" && format != "json" {
		fmt.Fprintf(p.stderr, "FATAL: check: --format must be text or json, not '%s'\n", format)
		return CheckCouldNotRun
	}
	rep, err := authoring.Check(authoring.Config{Options: allDeclared(p.drivers, p.tests), Bundled: lua.Scripts,
		Getenv: os.Getenv}, names)
	if err != nil {
		fmt.Fprintf(p.stderr, "FATAL: check: %v\n", err)
		return CheckCouldNotRun
	}
	out := p.log.Out()
	if format == "json" {
		err = rep.WriteJSON(out)
	} else {
		err = rep.WriteText(out)
	}
	if err != nil && !errors.Is(err, io.ErrClosedPipe) {
		fmt.Fprintf(p.stderr, "FATAL: check: %v\n", err)
		return CheckCouldNotRun
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(p.stderr, "FATAL: check: %v\n", e)
	}
	if format == "text" && len(rep.Errors) == 0 {
		// On standard error: standard output is the findings alone.
		found := "nothing found"
		if n := len(rep.Findings); n > 0 {
			found = plural(int64(n), "finding")
		}
		fmt.Fprintf(p.stderr, "check: %s, %s: %s\n", plural(int64(rep.Scripts), "script"), plural(int64(rep.Lines), "line"), found)
	}
	switch {
	case len(rep.Errors) > 0:
		return CheckCouldNotRun
	case len(rep.Findings) > 0:
		return 1
	}
	return 0
}

func printCheckHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %s check [--format=json] SCRIPT...\n\n", prog)
	fmt.Fprintf(out, "Checks Lua workloads before a server is touched, with sysbench-go's own parser and a Lua state\n"+
		"made as a run makes it: syntax errors (LuaJIT's words), globals read but never defined, calls of\n"+
		"sysbench's API with the wrong number or kind of arguments or of names it does not have, options\n"+
		"read but not declared or declared but never read, misspelt hooks, a missing event function, and\n"+
		"statements bound with a number of parameters other than their '?' placeholders. A SCRIPT is a\n"+
		"file or a bundled workload's name; the modules it loads are checked with it, and a module is\n"+
		"checked within the scripts beside it that load it. See docs/writing-workloads.md.\n\n")
	fmt.Fprintf(out, "Exit status: 0 nothing found, 1 findings, %d a script could not be checked.\n\n", CheckCouldNotRun)
	fmt.Fprintf(out, "check options:\n%s\n", options.FormatHelp(checkOptions))
}
