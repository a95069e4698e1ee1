// Package docs holds the documentation; the results file's JSON Schema is
// embedded from here so the tests check the files the program writes
// against the very schema the documentation shows.
package docs

import _ "embed"

// ResultsSchema is results.schema.json.
//
//go:embed results.schema.json
var ResultsSchema []byte
