// Consumer module that builds helm, which lints and renders the Helm chart in helm/runplane.
module runplane.local/k8s-testenv/helm

go 1.26.0

require helm.sh/helm/v3 v3.22.0 // indirect
