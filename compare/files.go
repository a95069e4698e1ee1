package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sysbench-go/sysbench-go/report"
)

// The reports a comparison's directory gets.
const (
	SummaryFile = "compare.json"
	HTMLFile    = "report.html"
)

// WriteFiles writes compare.json and report.html into dir.
func (s *Summary) WriteFiles(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	var html bytes.Buffer
	if err := WriteHTML(&html, s); err != nil {
		return fmt.Errorf("the HTML report: %w", err)
	}
	for name, data := range map[string][]byte{SummaryFile: append(b, '\n'), HTMLFile: html.Bytes()} {
		path := filepath.Join(dir, name)
		if err := report.WriteAtomic(path, data); err != nil {
			return fmt.Errorf("cannot write '%s': %w", path, err)
		}
	}
	return nil
}

// CheckMatrixPlace refuses a matrix file that the comparison in dir would
// write over: compare.json, report.html or manifest.json by any name, or a
// file in its results/ or logs/ directories.
func CheckMatrixPlace(matrix, dir string) error {
	refuse := fmt.Errorf("compare: --matrix '%s' is a file compare writes into --dir '%s'; keep the matrix outside its results", matrix, dir)
	for _, name := range []string{SummaryFile, HTMLFile, ManifestFile} {
		if o, err := report.CheckOutput(filepath.Join(dir, name)); err == nil && o.Is(matrix) {
			return refuse
		}
	}
	m, err := filepath.EvalSymlinks(matrix)
	if err != nil {
		return nil // the matrix's own read says why
	}
	for _, sub := range []string{"results", "logs"} {
		d, err := filepath.EvalSymlinks(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(d, m); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return refuse
		}
	}
	return nil
}
