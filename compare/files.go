package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

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
