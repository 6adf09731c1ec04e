package console

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi"
	"github.com/consentd/consentd/core"
)

// TestErrorStatusIsTheAPIs: the console answers every error code with the API's status.
func TestErrorStatusIsTheAPIs(t *testing.T) {
	t.Parallel()
	h := &handler{cfg: Config{ErrorStatus: httpapi.ErrorStatus}, log: slog.New(slog.DiscardHandler)}
	r := httptest.NewRequest("GET", "/", nil)
	for _, c := range core.Codes() {
		err := core.Errorf(c, "what went wrong")
		if got, _ := h.message(r, err); got != httpapi.ErrorStatus(err) {
			t.Errorf("%s: the console answers %d, the API %d", c, got, httpapi.ErrorStatus(err))
		}
	}
}
