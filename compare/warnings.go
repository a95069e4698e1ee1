package compare

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// SpreadLimit is the spread across rounds above which a figure is flagged.
const SpreadLimit = 5.0

// clientSaturated is the share of the cores a cell could use above which
// its client, not its server, may have set the pace.
const clientSaturated = 0.9

// durabilitySettings are the settings that decide what a commit costs.
var durabilitySettings = []string{"log_bin", "sync_binlog", "innodb_flush_log_at_trx_commit", "innodb_doublewrite",
	"binlog_format", "fsync", "synchronous_commit", "wal_level", "full_page_writes"}

// warnings are what the results show that makes the comparison unfair.
func warnings(s *Summary, cpus int) []Warning {
	out := versionWarnings(s.Targets)
	out = append(out, durabilityWarnings(s.Targets)...)
	out = append(out, clientWarnings(s, cpus)...)
	out = append(out, otherClientWarnings(s)...)
	out = append(out, spreadWarnings(s)...)
	return append(out, steadyWarnings(s)...)
}

// steadyWarnings flag cells measured before their rate was steady: a
// series that was still changing (stats.SteadyState), or one that settled
// after the measured window began (a longer warm-up leaves that part out).
func steadyWarnings(s *Summary) []Warning {
	var out []Warning
	for _, c := range s.Cells {
		st := c.Steady
		if c.Status != StatusDone || st == nil || (st.Steady && st.Start == 0) {
			continue
		}
		msg := fmt.Sprintf("cell %s (%s, %s, %s, round %d) was measured before it was steady: ", c.ID, c.Target, c.Workload, plural(c.Threads, "thread"), c.Round)
		if !st.Steady {
			msg += fmt.Sprintf("its %s was still changing over its %d s", s.Rate, int(math.Round(c.measuredS())))
		} else {
			msg += fmt.Sprintf("its %s settled %g s into the measured run, %+.1f%% before that; a warm-up of %g s or more leaves that out", s.Rate, st.StartSeconds, 100*st.WarmupDifference, math.Ceil(st.StartSeconds))
		}
		out = append(out, Warning{Kind: "not_steady", Message: msg})
	}
	return out
}

// measuredS is how long the cell's series runs, in seconds.
func (c Cell) measuredS() float64 {
	if len(c.Series) == 0 {
		return 0
	}
	return c.Series[len(c.Series)-1].T
}

// family is an engine as versions compare: MariaDB and MySQL share a
// driver but not versions.
func family(t Target) string {
	if t.Driver == "mysql" && strings.Contains(strings.ToLower(t.ServerVersion), "mariadb") {
		return "MariaDB"
	}
	switch t.Driver {
	case "mysql":
		return "MySQL"
	case "pgsql":
		return "PostgreSQL"
	}
	return t.Driver
}

func versionWarnings(ts []Target) []Warning {
	var out []Warning
	byFamily := map[string][]Target{}
	var order []string
	for _, t := range ts {
		if t.ServerVersion == "" {
			continue
		}
		f := family(t)
		if _, ok := byFamily[f]; !ok {
			order = append(order, f)
		}
		byFamily[f] = append(byFamily[f], t)
	}
	for _, f := range order {
		group := byFamily[f]
		if slices.ContainsFunc(group, func(t Target) bool { return t.ServerVersion != group[0].ServerVersion }) {
			var parts []string
			for _, t := range group {
				parts = append(parts, fmt.Sprintf("%s %s", t.Name, t.ServerVersion))
			}
			out = append(out, Warning{Kind: "server_version",
				Message: fmt.Sprintf("%s targets run different server versions: %s", f, strings.Join(parts, ", "))})
		}
	}
	return out
}

// durabilityWarnings flag targets whose commits are durable when others'
// are not, and targets of one engine whose durability settings differ.
func durabilityWarnings(ts []Target) []Warning {
	var out []Warning
	var yes, no []string
	for _, t := range ts {
		if t.Durable == nil {
			continue
		}
		if *t.Durable {
			yes = append(yes, t.Name)
		} else {
			no = append(no, fmt.Sprintf("%s (%s)", t.Name, settingsText(t)))
		}
	}
	if len(yes) > 0 && len(no) > 0 {
		out = append(out, Warning{Kind: "durability", Message: fmt.Sprintf(
			"commits do not wait for the disk on %s, and do on %s: their write figures do not compare",
			strings.Join(no, ", "), strings.Join(yes, ", "))})
	}
	for i, a := range ts {
		for _, b := range ts[i+1:] {
			if family(a) != family(b) || len(a.Settings) == 0 || len(b.Settings) == 0 {
				continue
			}
			var diff []string
			for _, name := range durabilitySettings {
				va, oka := setting(a, name)
				vb, okb := setting(b, name)
				if oka && okb && !strings.EqualFold(va, vb) {
					diff = append(diff, fmt.Sprintf("%s %s / %s", name, va, vb))
				}
			}
			if len(diff) > 0 {
				out = append(out, Warning{Kind: "durability", Message: fmt.Sprintf(
					"%s and %s have different durability settings: %s", a.Name, b.Name, strings.Join(diff, ", "))})
			}
		}
	}
	return out
}

func setting(t Target, name string) (string, bool) {
	for _, s := range t.Settings {
		if s.Name == name {
			return s.Value, true
		}
	}
	return "", false
}

// settingsText names a target's durability settings that were read.
func settingsText(t Target) string {
	var parts []string
	for _, name := range durabilitySettings {
		if v, ok := setting(t, name); ok && name != "binlog_format" && name != "wal_level" {
			parts = append(parts, name+"="+v)
		}
	}
	return strings.Join(parts, ", ")
}

// clientWarnings flag groups whose client used nearly all the cores it
// could: as many as its threads, at most the machine's. An embedded
// engine runs in the client, so its client is always busy.
func clientWarnings(s *Summary, cpus int) []Warning {
	if cpus <= 0 {
		return nil
	}
	var out []Warning
	embedded := map[string]bool{}
	for _, t := range s.Targets {
		embedded[t.Name] = t.Driver == "sqlite" // the engine is the client
	}
	for _, g := range s.Groups {
		if g.ClientCPUPct.N == 0 || embedded[g.Target] {
			continue
		}
		limit := 100 * clientSaturated * float64(min(g.Threads, cpus))
		if g.ClientCPUPct.Max >= limit {
			out = append(out, Warning{Kind: "client_cpu", Message: fmt.Sprintf(
				"%s, %s, %s: the client used %.0f%% CPU (of %d cores): the client, not the server, may have set the pace",
				g.Target, g.Workload, plural(g.Threads, "thread"), g.ClientCPUPct.Max, cpus)})
		}
	}
	return out
}

// spreadWarnings flag the groups whose rate varied across rounds by more
// than SpreadLimit: one line per target, naming the worst.
func spreadWarnings(s *Summary) []Warning {
	var out []Warning
	for _, t := range s.Targets {
		var over []Group
		n := 0
		for _, g := range s.Groups {
			if g.Target != t.Name || g.Rate(s.Rate).N < 2 {
				continue
			}
			n++
			if g.Rate(s.Rate).SpreadPct > SpreadLimit {
				over = append(over, g)
			}
		}
		if len(over) == 0 {
			continue
		}
		slices.SortStableFunc(over, func(a, b Group) int {
			return cmp.Compare(b.Rate(s.Rate).SpreadPct, a.Rate(s.Rate).SpreadPct)
		})
		var worst []string
		for _, g := range over[:min(len(over), maxListed)] {
			worst = append(worst, fmt.Sprintf("%s, %s %.1f%%", g.Workload, plural(g.Threads, "thread"), g.Rate(s.Rate).SpreadPct))
		}
		if len(over) > maxListed {
			worst = append(worst, fmt.Sprintf("and %d more", len(over)-maxListed))
		}
		out = append(out, Warning{Kind: "spread", Message: fmt.Sprintf("%s: %s spread across rounds above %.0f%% in %d of %d workloads and thread counts: %s",
			t.Name, strings.ToUpper(s.Rate), SpreadLimit, len(over), n, strings.Join(worst, "; "))})
	}
	return out
}

// otherClientWarnings flag the targets on whose server --server-stats
// saw other clients work during some cells: one line per target.
func otherClientWarnings(s *Summary) []Warning {
	var out []Warning
	for _, t := range s.Targets {
		var where []string
		cells, rounds := 0, 0
		for _, g := range s.Groups {
			if g.Target != t.Name {
				continue
			}
			rounds += g.Rounds
			if g.OtherClients > 0 {
				cells += g.OtherClients
				where = append(where, fmt.Sprintf("%s, %s", g.Workload, plural(g.Threads, "thread")))
			}
		}
		if cells == 0 {
			continue
		}
		if len(where) > maxListed {
			where = append(where[:maxListed], fmt.Sprintf("and %d more", len(where)-maxListed))
		}
		out = append(out, Warning{Kind: "other_clients", Message: fmt.Sprintf(
			"%s: other clients worked on the server during %d of its %d cells (%s): the server's CPU, memory, bytes written and counters of those cells include their work",
			t.Name, cells, rounds, strings.Join(where, "; "))})
	}
	return out
}

// maxListed is how many groups a warning names before it sums them up.
const maxListed = 3
