//go:build pprof

package main

// Built only with -tags pprof: serves net/http/pprof on the loopback address in PPROF_ADDR
// (not a CONSENTD_ variable: those are settings), so that the server can be profiled under
// load (docs/consent-records.md). Release builds carry no profiling endpoint.

import (
	"log"
	"net/http"
	_ "net/http/pprof" //nolint:gosec // only in -tags pprof builds, on the address given
	"os"
)

func init() {
	if addr := os.Getenv("PPROF_ADDR"); addr != "" {
		go func() { log.Println(http.ListenAndServe(addr, nil)) }()
	}
}
