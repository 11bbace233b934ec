//go:build tools

// Package tools pins the S3 engine of Runplane's volume S3 endpoint: versitygw, built from this module.
package tools

import _ "github.com/versity/versitygw/cmd/versitygw"
