// Consumer module that builds promtool, which checks and unit-tests the Prometheus rules in deploy/.
module runplane.local/k8s-testenv/promtool

go 1.26.7

require github.com/prometheus/prometheus v0.316.0 // indirect
