package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/sysbench-go/sysbench-go/options"
)

// ourCommand is a command beyond sysbench 1.0.20's, named by the first
// argument: `sysbench-go report FILE...`.
type ourCommand struct {
	name string
	// usage is what follows the name in --help; help, what it does.
	usage, help string
	options     []options.Option
	// args completes its other arguments (nil: files).
	args []string
	run  func(p *program, args []string) int
	// hidden commands are for the shell's completion only.
	hidden bool
	// ownSignals: the command stops by itself on a signal, and says so
	// (runOurs).
	ownSignals bool
}

// ourCommands are the commands beyond sysbench's, in --help order.
func ourCommands() []ourCommand {
	return []ourCommand{
		{name: "report", usage: "[options] FILE...", help: "print the final report of a --results file, or of several merged (see '$0 report --help')",
			options: reportOptions, run: (*program).reportCommand},
		{name: "compare", usage: "--matrix=FILE --dir=DIR", help: "run a comparison matrix of targets, workloads, thread counts and rounds, with side-by-side tables and an HTML report (see '$0 compare --help')",
			options: compareOptions, run: (*program).compareCommand, ownSignals: true},
		{name: "start", usage: "[options] URL...", help: "start the instances of a distributed run together, then merge their results (see '$0 start --help')",
			options: startOptions, args: []string{}, run: (*program).startCommand, ownSignals: true},
		{name: "deploy", usage: "kubernetes --instances=N [options] TESTNAME [options] run", help: "print the Kubernetes manifests of a distributed run of N instances (see '$0 deploy --help')",
			options: deployOptions, args: []string{"kubernetes"}, run: (*program).deployCommand},
		{name: "new", usage: "[--shape=SHAPE] FILE", help: "write a commented, runnable workload to start from (see '$0 new --help')",
			options: newOptions, run: (*program).newCommand},
		{name: "check", usage: "[--format=json] SCRIPT...", help: "check Lua workloads before a server is touched: syntax, undefined globals, API calls, options, hooks, placeholders (see '$0 check --help')",
			options: checkOptions, run: (*program).checkCommand},
		{name: "completion", usage: "bash|zsh", help: "print the shell completion script (see '$0 completion --help')",
			options: helpOnly, args: []string{"bash", "zsh"}, run: (*program).completionCommand},
		{name: "man", usage: "", help: "print the manual page (roff), made from the options --help lists",
			options: helpOnly, args: []string{}, run: (*program).manCommand},
		{name: completeCommandName, hidden: true, run: (*program).completeCommand},
	}
}

// helpText is what the command does, for --help, the manual page and the
// shell's completion: its help with prog, the program's name, for $0.
func (c ourCommand) helpText(prog string) string {
	return strings.ReplaceAll(c.help, "$0", prog)
}

// helpOnly are the options of a command that has no others.
var helpOnly = []options.Option{
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

// findCommand is our command named name, if any.
func findCommand(name string) (ourCommand, bool) {
	for _, c := range ourCommands() {
		if c.name == name {
			return c, true
		}
	}
	return ourCommand{}, false
}

// printCommands lists our commands for --help; prog, the program's name
// as invoked, replaces $0 in their help.
func printCommands(w io.Writer, prog string) {
	fmt.Fprintf(w, "Commands beyond sysbench 1.0.20:\n")
	for _, c := range ourCommands() {
		if c.hidden {
			continue
		}
		usage := c.name
		if c.usage != "" {
			usage += " " + c.usage
		}
		fmt.Fprintf(w, "  %s - %s\n", usage, c.helpText(prog))
	}
	fmt.Fprintln(w)
}
