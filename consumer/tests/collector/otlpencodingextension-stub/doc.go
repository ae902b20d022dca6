// SPDX-License-Identifier: Apache-2.0
// Package otlpencodingextension is an empty stand-in: fileexporter's tests import the real
// module, whose v0.165.0 (and v0.164.0) the Go module proxy refuses with 403, and `go mod tidy`
// (run by the Collector builder) resolves test imports too. Nothing here is linked into the
// Collector: fileexporter itself does not import it.
package otlpencodingextension
