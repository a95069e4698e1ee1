package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/sysbench-go/sysbench-go/authoring"
	"github.com/sysbench-go/sysbench-go/options"
)

// newOptions are new's options.
var newOptions = []options.Option{
	{Name: "shape", Desc: "the kind of workload: " + shapeNames(), Kind: options.String, Default: authoring.Shapes[0].Name},
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

func shapeNames() string {
	var names []string
	for _, s := range authoring.Shapes {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// newCommand writes a commented, runnable workload to start from.
func (p *program) newCommand(args []string) int {
	values, rest, ok := p.commandArgs(newOptions, args)
	switch {
	case !ok:
		return 1
	case values.Bool("help"):
		printNewHelp(p.log.Out(), p.name())
		return 0
	case len(rest) != 1:
		return p.fail(fmt.Errorf("new: one file to write, not %d (usage: %s new [--shape=SHAPE] FILE)", len(rest), p.name()))
	}
	file, shape := rest[0], values.String("shape")
	if err := authoring.WriteWorkload(shape, file); err != nil {
		return p.fail(fmt.Errorf("new: %w", err))
	}
	out := p.log.Out()
	fmt.Fprintf(out, "Wrote %s: %s. Try it with no server:\n", file, shapeDescription(shape))
	fmt.Fprintf(out, "  %[1]s %[2]s --db-driver=sqlite prepare\n  %[1]s %[2]s --db-driver=sqlite --time=10 run\n"+
		"  %[1]s %[2]s --db-driver=sqlite cleanup\nCheck it as you change it: %[1]s check %[2]s\n", p.name(), file)
	return 0
}

func shapeDescription(name string) string {
	for _, s := range authoring.Shapes {
		if s.Name == name {
			return s.Description
		}
	}
	return name
}

func printNewHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %s new [--shape=SHAPE] FILE\n\n", prog)
	fmt.Fprintf(out, "Writes a commented workload to start from: options declared, prepare and cleanup, thread_init\n"+
		"with prepared statements, an event and a report hook. It runs as written on every driver, the\n"+
		"embedded SQLite and the dry run included. An existing FILE is never overwritten. See\n"+
		"docs/writing-workloads.md.\n\nShapes:\n")
	for _, s := range authoring.Shapes {
		fmt.Fprintf(out, "  %-13s %s\n", s.Name, s.Description)
	}
	fmt.Fprintf(out, "\nnew options:\n%s\n", options.FormatHelp(newOptions))
}
