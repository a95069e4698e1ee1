package authoring

import "slices"

// suggest is the candidate closest to name within a typo of it (one edit
// for names of three or four letters, two up to ten, three beyond; a swap
// of two neighbours is one edit; none for shorter names, where one edit
// is half the name), "" when none is. Ties go to the first in sorted
// order, so that a finding's text does not vary.
func suggest(name string, candidates []string) string {
	limit := 3
	switch {
	case len(name) <= 2:
		return ""
	case len(name) <= 4:
		limit = 1
	case len(name) <= 10:
		limit = 2
	}
	cands := slices.Clone(candidates)
	slices.Sort(cands)
	best, bestD := "", limit+1
	for _, c := range cands {
		if c == name || c == "" {
			continue
		}
		if d := editDistance(name, c, limit); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions and swaps of neighbours), or
// limit+1 when it is beyond limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}
