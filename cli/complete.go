package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/options"
)

// completeCommandName is the hidden command the completion scripts call:
// `sysbench-go __complete WORD...` prints what the last word (the one
// being completed, maybe empty) can be, one "word<TAB>description" a
// line, and ":files" when file names fit too.
const completeCommandName = "__complete"

// candidate is one completion of the word being completed.
type candidate struct{ word, desc string }

// completeCommand prints the completions of its arguments' last word.
func (p *program) completeCommand(args []string) int {
	if len(args) == 0 {
		args = []string{""}
	}
	cands, files := p.completions(args[:len(args)-1], args[len(args)-1])
	out := p.log.Out()
	for _, c := range cands {
		fmt.Fprintf(out, "%s\t%s\n", c.word, oneLineDesc(c.desc))
	}
	if files {
		fmt.Fprintln(out, ":files")
	}
	return 0
}

// oneLineDesc is the first sentence of a description, short enough for a
// completion menu.
func oneLineDesc(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// runCommands are the commands of a test, as the reference's help names
// them.
var runCommands = []candidate{{"prepare", "create the test's data"}, {"run", "run the benchmark"},
	{"cleanup", "remove the test's data"}, {"help", "print the test's options"}}

// completions are what cur can be after the words prev; files says that
// file names fit too.
func (p *program) completions(prev []string, cur string) ([]candidate, bool) {
	if len(prev) > 0 {
		if c, ok := findCommand(prev[0]); ok && !c.hidden {
			return p.commandCompletions(c, prev[1:], cur)
		}
	}
	return p.runCompletions(prev, cur, nil)
}

// commandCompletions complete the arguments of one of our commands.
func (p *program) commandCompletions(c ourCommand, prev []string, cur string) ([]candidate, bool) {
	if c.name == "deploy" && len(prev) > 0 && prev[0] == "kubernetes" {
		// The rest is a run's command line, with the deploy options.
		return p.runCompletions(prev[1:], cur, c.options)
	}
	if strings.HasPrefix(cur, "--") {
		return optionCompletions(c.options, cur, nil)
	}
	if c.args == nil {
		return nil, true
	}
	var out []candidate
	if len(prev) == 0 || c.name == "start" {
		for _, a := range c.args {
			out = append(out, candidate{word: a})
		}
	}
	return out, false
}

// runCompletions complete a run's command line: options (the test's own
// once its name is on the line), the test name, the command. extra are
// options of the command the line is given to (deploy's).
func (p *program) runCompletions(prev []string, cur string, extra []options.Option) ([]candidate, bool) {
	var words []string
	for _, w := range prev {
		if !strings.HasPrefix(w, "--") {
			words = append(words, w)
		}
	}
	known := append(allDeclared(p.drivers, p.tests), extra...)
	if extra != nil { // deploy's: the manifests set these
		known = slices.DeleteFunc(known, func(o options.Option) bool { return slices.Contains(reservedRunOptions, o.Name) })
	}
	var testCommands []string
	if len(words) > 0 {
		opts, cmds := p.testOptions(prev, words[0], tabBudget)
		known = append(known, opts...)
		testCommands = cmds
	}
	if strings.HasPrefix(cur, "--") {
		var drv []string
		for _, d := range p.drivers {
			drv = append(drv, d.Name)
		}
		return optionCompletions(known, cur, map[string][]string{"db-driver": drv})
	}
	switch len(words) {
	case 0:
		var out []candidate
		if extra == nil {
			for _, c := range ourCommands() {
				if !c.hidden {
					out = append(out, candidate{c.name, c.helpText(p.name())})
				}
			}
		}
		for _, w := range lua.Workloads {
			out = append(out, candidate{w.Name, w.Description})
		}
		for _, t := range p.tests {
			out = append(out, candidate{t.Name, t.Description})
		}
		return out, true // a script's path
	case 1:
		out := append([]candidate(nil), runCommands...)
		for _, c := range testCommands {
			if !slices.ContainsFunc(out, func(r candidate) bool { return r.word == c }) {
				out = append(out, candidate{c, "the script's command"})
			}
		}
		return out, false
	}
	return nil, false
}

// testOptions are the options and commands of the test named on the
// command line (prev): a built-in test's, or those the script declares
// when loaded, as `sysbench-go TESTNAME help` would load it. Nothing when
// it cannot be loaded: completion says nothing rather than an error.
func (p *program) testOptions(prev []string, name string, budget time.Duration) ([]options.Option, []string) {
	t, _ := p.loadTest(prev, name, budget)
	return t.options, t.commands
}

// testDecl is what a test declares: its options (declared says whether a
// script declares any: one that does not takes any option as a global)
// and a script's own commands.
type testDecl struct {
	options  []options.Option
	declared bool
	commands []string
	builtin  bool
}

// The time a script's main chunk has to declare its options: at TAB,
// one that takes longer is not waited for (TAB stays fast); the man page
// and deploy's check wait longer, so that a busy machine does not make a
// script read as one declaring nothing.
const (
	tabBudget  = 500 * time.Millisecond
	readBudget = 10 * time.Second
)

// loadTest reads the declarations of the test named on the command line
// prev without running the script: its main chunk runs in luaapi's
// sandbox, where nothing it calls can touch a file, the network, a
// process or the clock. A script whose chunk needs more than the sandbox
// allows reads as one that declares nothing (any option is then its own).
func (p *program) loadTest(prev []string, name string, budget time.Duration) (testDecl, error) {
	for _, b := range p.tests {
		if b.Name == name {
			return testDecl{options: b.Options, declared: true, builtin: true}, nil
		}
	}
	q := &program{ctx: context.Background(), stdin: strings.NewReader(""), stderr: io.Discard,
		log: logging.New(io.Discard, logging.DefaultLevel), drivers: p.drivers, tests: p.tests}
	cl, err := parseArgs(prev)
	if err != nil {
		return testDecl{}, err
	}
	cl.command = "help" // loaded as for help: no run's checks; scripts want a command
	spec, err := readSpec(cl, prev, allDeclared(p.drivers, p.tests), io.Discard)
	if err != nil || spec.resolve(func(string) {}) != nil {
		return testDecl{}, errors.New("invalid options")
	}
	env := q.scriptEnv(spec)
	if env == nil {
		return testDecl{}, errors.New("invalid options")
	}
	d, err := luaapi.ReadDeclarations(env, name, budget)
	if errors.Is(err, luaapi.ErrNeedsRun) {
		return testDecl{}, nil
	}
	if err != nil {
		return testDecl{}, err
	}
	return testDecl{options: d.Options, declared: d.Declared, commands: d.Commands}, nil
}

// choicesRE finds the choices a description lists: {uniform,gaussian}.
var choicesRE = regexp.MustCompile(`\{([A-Za-z0-9_.-]+(?:, ?[A-Za-z0-9_.-]+)+)\}`)

// optionCompletions complete cur, an option: its name (--name= for one
// that takes a value) or, after "=", its value where choices, the
// option's kind or its description ({a,b}) say what it can be.
func optionCompletions(known []options.Option, cur string, choices map[string][]string) ([]candidate, bool) {
	name, _, hasVal := strings.Cut(cur[2:], "=")
	var out []candidate
	seen := map[string]bool{}
	if !hasVal {
		for _, o := range known {
			c := options.Canonical(o.Name)
			if seen[c] || !strings.HasPrefix(c, options.Canonical(name)) {
				continue
			}
			seen[c] = true
			w := "--" + inStyle(o.Name, name)
			if o.Kind != options.Bool {
				w += "="
			}
			out = append(out, candidate{w, o.Desc})
		}
		return out, false
	}
	for _, o := range known {
		if options.Canonical(o.Name) != options.Canonical(name) {
			continue
		}
		var values []string
		switch {
		case o.Kind == options.Bool && !o.Words:
			values = []string{"on", "off"}
		case o.Kind == options.File:
			return nil, true
		case choices[o.Name] != nil:
			values = choices[o.Name]
		default:
			if m := choicesRE.FindStringSubmatch(o.Desc); m != nil {
				values = splitChoices(m[1])
			}
		}
		for _, v := range values {
			out = append(out, candidate{"--" + name + "=" + v, ""})
		}
		return out, false
	}
	return nil, false
}

// inStyle writes an option's name with the separator the user typed:
// options take '-' and '_' alike, and the shell matches the prefix as typed.
func inStyle(name, typed string) string {
	switch {
	case strings.Contains(typed, "-"):
		return strings.ReplaceAll(name, "_", "-")
	case strings.Contains(typed, "_"):
		return strings.ReplaceAll(name, "-", "_")
	}
	return name
}

func splitChoices(s string) []string {
	var out []string
	for _, c := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(c))
	}
	return out
}

// completionCommand prints the completion script for the shell named.
func (p *program) completionCommand(args []string) int {
	values, rest, ok := p.commandArgs(helpOnly, args)
	switch {
	case !ok:
		return 1
	case values.Bool("help"):
		printCompletionHelp(p.log.Out(), p.name())
		return 0
	case len(rest) != 1:
		printCompletionHelp(p.stderr, p.name()) // a usage error, not the output asked for
		return 1
	}
	name := p.name()
	switch rest[0] {
	case "bash":
		fmt.Fprint(p.log.Out(), bashCompletion(name))
	case "zsh":
		fmt.Fprint(p.log.Out(), zshCompletion(name))
	default:
		return p.fail(errors.New("completion: the shells are bash and zsh, not '" + rest[0] + "'"))
	}
	return 0
}

func printCompletionHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %[1]s completion bash|zsh\n\n", prog)
	fmt.Fprintf(out, "Prints the shell completion script: options (a workload's own once its name is on the line), their\nvalues where they have a few, the bundled workloads, the built-in tests and the commands.\nA script's options are read in a sandbox: its code cannot touch a file, the network, a process\nor the clock.\n\n")
	fmt.Fprintf(out, "  bash: source <(%[1]s completion bash), or save it as\n        ~/.local/share/bash-completion/completions/%[1]s\n", prog)
	fmt.Fprintf(out, "  zsh:  save it as _%s in a directory of $fpath (make install does both)\n\n", prog)
}

// funcName is a shell function name for program name.
func funcName(name string) string {
	return "_" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
}

// bashCompletion is the bash completion script for the program name: it
// asks the program itself (__complete), so that it knows what this
// binary knows, a script's options included.
func bashCompletion(name string) string {
	return strings.NewReplacer("_PROG_FUNC", funcName(name), "PROG_NAME", name).Replace(bashTemplate)
}

const bashTemplate = `# bash completion for PROG_NAME                               -*- shell-script -*-
# Made by 'PROG_NAME completion bash'. Source it, or save it as
# ~/.local/share/bash-completion/completions/PROG_NAME.

_PROG_FUNC() {
    # The words as typed, split at blanks only: bash would split
    # --option=value at the '='.
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words
    read -r -a words <<<"$line"
    [[ -z $line || $line == *[[:blank:]] ]] && words+=("")
    local cur=${words[${#words[@]}-1]} out c files=0
    out=$("${words[0]}" __complete "${words[@]:1}" 2>/dev/null) || return
    local -a cands=()
    while IFS= read -r c; do
        case $c in
        :files) files=1 ;;
        ?*) cands+=("${c%%$'\t'*}") ;;
        esac
    done <<<"$out"
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "${cands[*]}" -- "$cur"))
    local pre=""
    [[ $cur == --*=* ]] && pre=${cur%%=*}=
    if ((files)); then
        compopt -o filenames 2>/dev/null
        for c in $(compgen -f -- "${cur#"$pre"}"); do
            COMPREPLY+=("$pre$c")
        done
    fi
    # bash replaces only what follows the '=' when it splits words there.
    if [[ -n $pre && $COMP_WORDBREAKS == *=* ]]; then
        COMPREPLY=("${COMPREPLY[@]#"$pre"}")
    fi
    if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *= ]]; then
        compopt -o nospace 2>/dev/null
    fi
}
complete -F _PROG_FUNC PROG_NAME
`

// zshCompletion is the zsh completion script for the program name.
func zshCompletion(name string) string {
	return strings.NewReplacer("_PROG_FUNC", funcName(name), "PROG_NAME", name).Replace(zshTemplate)
}

const zshTemplate = `#compdef PROG_NAME
# zsh completion for PROG_NAME. Made by 'PROG_NAME completion zsh'; save it
# as _PROG_NAME in a directory of $fpath.

_PROG_FUNC() {
    local -a out eq eqd plain plaind
    local l w d files=0
    out=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    for l in $out; do
        [[ -z $l ]] && continue
        if [[ $l == :files ]]; then
            files=1
            continue
        fi
        w=${l%%$'\t'*}
        d=$w
        [[ $l == *$'\t'?* ]] && d="$w -- ${l#*$'\t'}"
        if [[ $w == *= ]]; then
            eq+=("$w"); eqd+=("$d")
        else
            plain+=("$w"); plaind+=("$d")
        fi
    done
    (( ${#eq} )) && compadd -Q -S '' -l -d eqd -a eq
    (( ${#plain} )) && compadd -Q -l -d plaind -a plain
    if (( files )); then
        [[ $PREFIX == --*=* ]] && compset -P '*='
        _files
    fi
}

if [[ $funcstack[1] == _PROG_FUNC || $funcstack[1] == _PROG_NAME ]]; then
    _PROG_FUNC "$@"
else
    compdef _PROG_FUNC PROG_NAME
fi
`

// name is the program's name as run: sysbench-go, or sysbench.
func (p *program) name() string {
	if p.dropIn {
		return "sysbench"
	}
	return "sysbench-go"
}
