package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/options"
)

// manCommand prints the manual page, in roff (man(7)): the option tables
// that --help prints, those of our commands and of every bundled
// workload, so that it cannot drift from the program.
func (p *program) manCommand(args []string) int {
	values, rest, ok := p.commandArgs(helpOnly, args)
	switch {
	case !ok:
		return 1
	case values.Bool("help"):
		fmt.Fprintf(p.log.Out(), "Usage:\n  %s man > sysbench-go.1\n\nPrints the manual page (roff); man -l sysbench-go.1 shows it.\n\n", p.name())
		return 0
	case len(rest) > 0:
		return p.fail(fmt.Errorf("man: unexpected argument '%s'", rest[0]))
	}
	p.writeManPage(p.log.Out())
	return 0
}

// roff escapes text for a roff line: backslashes, and a leading '.' or
// a single quote that would make it a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// manOptions writes one option a paragraph: --name=VALUE, what it does
// and its default.
func manOptions(w io.Writer, opts []options.Option) {
	for _, o := range opts {
		fmt.Fprintf(w, ".TP\n.B \\-\\-%s", roff(o.Name))
		if ph := o.Kind.Placeholder(); o.Kind != options.Bool {
			fmt.Fprintf(w, "%s", roff(ph))
		}
		fmt.Fprintln(w)
		desc := roff(o.Desc)
		if !o.NoDefault && o.Default != "" {
			desc += " [" + roff(o.Default) + "]"
		}
		fmt.Fprintln(w, desc)
	}
}

func (p *program) writeManPage(w io.Writer) {
	b := currentBuild()
	date := b.Date
	if len(date) >= 10 {
		date = date[:10]
	}
	fmt.Fprintf(w, ".\\\" The manual page of sysbench-go, made by 'sysbench-go man' from its option tables.\n")
	fmt.Fprintf(w, ".TH SYSBENCH\\-GO 1 \"%s\" \"sysbench\\-go %s\" \"User Commands\"\n", date, roff(b.Version))
	fmt.Fprintf(w, ".SH NAME\nsysbench\\-go \\- a scriptable database and system benchmark, compatible with sysbench %s\n", APILevel)
	fmt.Fprintf(w, ".SH SYNOPSIS\n.B sysbench\\-go\n[\\fIoptions\\fR]... [\\fItestname\\fR] [\\fIcommand\\fR]\n")
	for _, c := range ourCommands() {
		if !c.hidden {
			fmt.Fprintf(w, ".br\n.B sysbench\\-go %s\n%s\n", c.name, roff(c.usage))
		}
	}
	fmt.Fprintf(w, ".SH DESCRIPTION\n")
	fmt.Fprintf(w, "A drop\\-in replacement for sysbench %s: the same command line, Lua API and reports, ", APILevel)
	fmt.Fprintf(w, "with Lua scripts run on gopher\\-lua, the PostgreSQL, MySQL and MariaDB drivers and an embedded SQLite engine. ")
	fmt.Fprintf(w, "\\fItestname\\fR is a bundled workload, a built\\-in test or the path of a Lua script. ")
	fmt.Fprintf(w, "Installed (or linked) under the name \\fBsysbench\\fR, it answers \\fB\\-\\-version\\fR as sysbench %s does.\n", APILevel)
	fmt.Fprintf(w, ".SH COMMANDS\n")
	for _, c := range runCommands {
		fmt.Fprintf(w, ".TP\n.B %s\n%s\n", c.word, roff(c.desc))
	}
	for _, c := range ourCommands() {
		if !c.hidden {
			fmt.Fprintf(w, ".TP\n.B %s\n%s\n", c.name, roff(c.helpText("sysbench-go")))
		}
	}
	fmt.Fprintf(w, ".SH OPTIONS\nOptions are \\fB\\-\\-name=value\\fR, or \\fB\\-\\-name\\fR for a boolean (on/off, true/false, yes/no, 1/0), in any position.\n")
	for _, g := range generalGroups() {
		fmt.Fprintf(w, ".SS \"%s\"\n", roff(g.title))
		manOptions(w, g.opts)
	}
	for _, d := range p.drivers {
		fmt.Fprintf(w, ".SS \"%s driver options\"\n", roff(d.Name))
		manOptions(w, d.Options)
	}
	fmt.Fprintf(w, ".SH BUILT\\-IN TESTS\n")
	for _, t := range p.tests {
		fmt.Fprintf(w, ".SS \"%s \\- %s\"\n", roff(t.Name), roff(t.Description))
		manOptions(w, t.Options)
	}
	fmt.Fprintf(w, ".SH BUNDLED WORKLOADS\n")
	for _, wl := range lua.Workloads {
		fmt.Fprintf(w, ".SS \"%s \\- %s\"\n", roff(wl.Name), roff(wl.Description))
		opts, _ := p.testOptions(nil, wl.Name, readBudget)
		manOptions(w, opts)
	}
	for _, c := range ourCommands() {
		if c.hidden || len(c.options) == 0 {
			continue
		}
		fmt.Fprintf(w, ".SH \"%s OPTIONS\"\n", strings.ToUpper(roff(c.name)))
		manOptions(w, c.options)
	}
	fmt.Fprintf(w, ".SH ENVIRONMENT\n")
	for _, e := range [][2]string{
		{"MYSQL_PWD", "the MySQL password when \\-\\-mysql\\-password is not given"},
		{"PGPASSWORD", "the PostgreSQL password when \\-\\-pgsql\\-password is not given"},
		{"LUA_PATH", "where scripts and the modules they require are searched, as in sysbench"},
	} {
		fmt.Fprintf(w, ".TP\n.B %s\n%s\n", e[0], e[1])
	}
	fmt.Fprintf(w, ".SH EXIT STATUS\n")
	for _, e := range [][2]string{
		{"0", "success"},
		{"1", "an error (a FATAL line says which)"},
		{"2", "a run forced to shut down: \\-\\-forced\\-shutdown expired, or its events could not be ended after \\-\\-time"},
		{"98", "report \\-\\-baseline: the regression gate failed (a figure significantly worse than \\-\\-gate\\-threshold)"},
		{"99", "a \\-\\-threshold missed"},
		{"128+N", "signal N cut a run or command short: 130 for SIGINT, 143 for SIGTERM, 141 when the reader of the output went away (SIGPIPE); a run prints its report and a line saying so, and its \\-\\-results file lists every reason it ended"},
	} {
		fmt.Fprintf(w, ".TP\n.B %s\n%s\n", e[0], e[1])
	}
	fmt.Fprintf(w, ".SH SEE ALSO\n.BR sysbench (1);\nthe documentation in the docs/ directory of https://github.com/sysbench\\-go/sysbench\\-go\n")
}
