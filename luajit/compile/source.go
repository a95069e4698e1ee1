package compile

import "strings"

// idSize is LuaJIT's LUA_IDSIZE: the longest chunk name errors show.
const idSize = 60

// ShortSource is how LuaJIT shows a chunk name (a proto's source) in
// messages, its short_src: "=name" as name, "@file" as the file (its tail
// when long), anything else as the source text's first line in
// [string "..."].
func ShortSource(name string) string {
	switch {
	case strings.HasPrefix(name, "="):
		s := name[1:]
		if len(s) > idSize-1 {
			s = s[:idSize-1]
		}
		return s
	case strings.HasPrefix(name, "@"):
		s := name[1:]
		if len(s) > idSize-1 {
			s = "..." + s[len(s)-(idSize-4):]
		}
		return s
	}
	line, _, cut := strings.Cut(name, "\n")
	if i := strings.IndexByte(line, '\r'); i >= 0 {
		line, cut = line[:i], true
	}
	const room = idSize - len(`[string ""]`) - 1
	if !cut && len(line) <= room {
		return `[string "` + line + `"]`
	}
	if len(line) > room-3 {
		line = line[:room-3]
	}
	return `[string "` + line + `..."]`
}
