// Consumer module that builds the standalone kwok controller for the Kubernetes test environment.
module runplane.local/k8s-testenv/kwok

go 1.26.0

require sigs.k8s.io/kwok v0.8.0 // indirect
