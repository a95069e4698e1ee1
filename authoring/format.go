package authoring

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteText writes one line per finding: "file:line:column: message
// [kind]", the form compilers and editors read.
func (r *Report) WriteText(w io.Writer) error {
	for _, f := range r.Findings {
		if _, err := fmt.Fprintf(w, "%s:%d:%d: %s [%s]\n", f.File, f.Line, f.Column, f.Message, f.Kind); err != nil {
			return err
		}
	}
	return nil
}

// jsonReport is the --format=json document (docs/writing-workloads.md,
// "check's JSON").
type jsonReport struct {
	Version  int       `json:"version"`
	Scripts  int       `json:"scripts"`
	Lines    int       `json:"lines"`
	Findings []Finding `json:"findings"`
	Errors   []string  `json:"errors"`
}

// JSONVersion is the version of check's JSON document.
const JSONVersion = 1

// WriteJSON writes the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	doc := jsonReport{Version: JSONVersion, Scripts: r.Scripts, Lines: r.Lines, Findings: r.Findings, Errors: []string{}}
	for _, e := range r.Errors {
		doc.Errors = append(doc.Errors, e.Error())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
