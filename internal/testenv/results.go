package testenv

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sysbench-go/sysbench-go/docs"
)

var resultsSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(docs.ResultsSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://sysbench-go.dev/results.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// ValidateResults checks a results document against
// docs/results.schema.json with a JSON Schema validator (in tests only:
// the validator's start-up costs every run of the program some 6 ms); the
// error is one line naming the first place that does not conform.
func ValidateResults(b []byte) error {
	sch, err := resultsSchema()
	if err != nil {
		return fmt.Errorf("the results schema does not compile: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not a valid results file: %s", firstCause(err))
	}
	return nil
}

// firstCause is the innermost reason of a validation error, on one line.
func firstCause(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return strings.ReplaceAll(err.Error(), "\n", " ")
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := "/" + strings.Join(ve.InstanceLocation, "/")
	msg := strings.ReplaceAll(ve.Error(), "\n", " ")
	if strings.HasPrefix(msg, "at '") {
		if i := strings.Index(msg, "': "); i >= 0 {
			msg = msg[i+3:]
		}
	}
	return fmt.Sprintf("at %s: %s", loc, msg)
}
