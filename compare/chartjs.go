package compare

// ChartJS is the vendored Chart.js with its license before it, as the
// report's page inlines it: other pages of the program (the capacity
// command's) draw with the same library rather than a second copy.
func ChartJS() string { return "/*! Chart.js license:\n" + chartJSLicense + "*/\n" + chartJS }
