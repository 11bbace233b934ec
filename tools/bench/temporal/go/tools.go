//go:build tools

// Package tools pins the peer of Runplane's job benchmark: Temporal's CLI, whose `temporal server start-dev` is the
// development server the peer bench measures, built from this module with the bench client in cmd/peer-bench.
package tools

import _ "github.com/temporalio/cli/cmd/temporal"
