// Package oidctest gives tests an OpenID provider of their own (mockoidc) on loopback, for the
// single sign-on of adapters/oidcsso as the console and the end-to-end suites drive it.
package oidctest

import (
	"net"
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
)

// Start starts a provider on loopback with the given middlewares around it, and stops it when
// the test ends.
func Start(t testing.TB, middlewares ...func(http.Handler) http.Handler) *mockoidc.MockOIDC {
	t.Helper()
	idp, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mw := range middlewares {
		if err := idp.AddMiddleware(mw); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := idp.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idp.Shutdown() }) //nolint:errcheck // the test is over
	return idp
}
