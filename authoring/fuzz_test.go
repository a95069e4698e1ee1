package authoring

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheck: check reads any source without panicking, and says where
// each finding is within the file.
func FuzzCheck(f *testing.F) {
	seeds, err := filepath.Glob("testdata/check/*.lua")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file := filepath.Join(t.TempDir(), "fuzz.lua")
		if err := os.WriteFile(file, src, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(testConfig, []string{file})
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range rep.Findings {
			if fd.File != file || fd.Line < 1 || fd.Column < 1 || fd.Line > rep.Lines+1 {
				t.Errorf("finding out of the file (%d lines): %+v", rep.Lines, fd)
			}
		}
	})
}
