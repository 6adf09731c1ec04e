package console_test

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/consentd/consentd/core"
)

// systemCtx acts as the system, for set-up done straight on the store.
var systemCtx = core.WithActor(context.Background(), core.System("console tests"))

func ptr[T any](v T) *T { return &v }

// startIDP starts an OpenID provider (mockoidc) on loopback for the test, with the given
// middlewares around it, and stops it at the end.
func startIDP(t *testing.T, middlewares ...func(http.Handler) http.Handler) *mockoidc.MockOIDC {
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
