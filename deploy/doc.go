// Package deploy holds the deployment files of sysbench-go: the Dockerfile
// at the repository's root builds the image, and kubernetes/ has the
// manifests of a distributed run (an Indexed Job of N instances, the merge
// of their results, and what they use: ConfigMap, Secret, results volume,
// metrics Service). The package has no code; its test decodes every
// manifest strictly into its Kubernetes type and checks that the manifests
// agree with each other and with the program's options.
package deploy
