package console

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
)

// TestErrorStatusIsTheAPIs: the console answers every error code with the API's status, the
// one table both adapters read (response.Status; httpapi's tests pin the API to it).
func TestErrorStatusIsTheAPIs(t *testing.T) {
	t.Parallel()
	h := &handler{log: slog.New(slog.DiscardHandler)}
	r := httptest.NewRequest("GET", "/", nil)
	for _, c := range core.Codes() {
		err := core.Errorf(c, "what went wrong")
		if got, _ := h.message(r, err); got != response.Status(err) {
			t.Errorf("%s: the console answers %d, the API %d", c, got, response.Status(err))
		}
	}
}
