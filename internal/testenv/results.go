package testenv

import "github.com/sysbench-go/sysbench-go/report"

// ValidateResults checks a results document against
// docs/results.schema.json with a JSON Schema validator; the error is one
// line naming the first place that does not conform. (report.Decode does
// it too, with the figures' consistency: this is the schema alone.)
func ValidateResults(b []byte) error { return report.ValidateSchema(b) }
