package authoring

import "testing"

func TestSuggest(t *testing.T) {
	t.Parallel()
	cands := []string{"uniform", "default", "thread_init", "event", "con", "a", "report_intermediate"}
	for _, c := range []struct{ name, want string }{
		{"unifrom", "uniform"},         // neighbours swapped: one edit
		{"thread_inti", "thread_init"}, // the same
		{"evnet", "event"},             // the same
		{"conn", "con"},                // one letter more
		{"report_intermedate", "report_intermediate"},
		{"f", ""},                // too short to guess
		{"uniformly", "uniform"}, // two letters more
		{"gaussian", ""},         // nothing close
		{"uniform", ""},          // itself is no suggestion
	} {
		if got := suggest(c.name, cands); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if d := editDistance("abcdef", "badcfe", 5); d != 3 {
		t.Errorf("editDistance of three swaps = %d", d)
	}
}
