// Package deploy holds the deployment files of sysbench-go and renders
// the Kubernetes manifests of a distributed run ('sysbench-go deploy
// kubernetes'): a headless Service, an Indexed Job of N instances that
// wait for their start (--await-start) and serve their results
// (--serve-results), and the Job of 'sysbench-go start' that starts them
// together and merges their results. The Dockerfile at the repository's
// root builds the image; grafana/ has a dashboard of the live metrics.
//
// The package imports no Kubernetes library: the manifests come from a
// template, and its tests decode them strictly into the k8s.io/api types.
package deploy
