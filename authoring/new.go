package authoring

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// templates are the workloads new writes, one per shape, with {{FILE}}
// (the file's name) and {{TABLE}} (the table it owns) to fill in.
//
//go:embed templates/*.lua
var templates embed.FS

// Shape is a kind of workload new writes.
type Shape struct {
	Name        string
	Description string
}

// Shapes are the workloads new writes, the default first.
var Shapes = []Shape{
	{"point-select", "point reads by primary key"},
	{"transaction", "a read, an update and a range read in one transaction"},
	{"insert", "inserts with a growing key, per thread"},
	{"command", "commands of its own: verify the table, prewarm it with every thread"},
}

// Workload is the text of a new workload of the shape for a file at
// path: the shape's template with its names filled in.
func Workload(shape, path string) ([]byte, error) {
	src, err := fs.ReadFile(templates, "templates/"+shape+".lua")
	if err != nil {
		var names []string
		for _, s := range Shapes {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("no shape '%s' (shapes: %s)", shape, strings.Join(names, ", "))
	}
	base := filepath.Base(path)
	return []byte(strings.NewReplacer("{{FILE}}", base, "{{TABLE}}", TableName(base)).Replace(string(src))), nil
}

// TableName is the table a workload in file name owns: the name without
// its extension, in lower case, letters, digits and '_' only.
func TableName(name string) string {
	name = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	t := strings.Trim(b.String(), "_")
	if t == "" || (t[0] >= '0' && t[0] <= '9') {
		t = "w_" + t
	}
	return strings.TrimSuffix(t[:min(len(t), 48)], "_")
}

// ErrExists is WriteWorkload's refusal of a file that exists.
var ErrExists = errors.New("exists")

// WriteWorkload writes a new workload of the shape at path, which must
// not exist: nothing is ever overwritten.
func WriteWorkload(shape, path string) error {
	src, err := Workload(shape, path)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %w: choose another name, or remove it first", path, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if _, err := f.Write(src); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
