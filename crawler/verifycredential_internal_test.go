package crawler

import (
	"net/http"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	vcred "github.com/consentd/consentd/core/verifier"
)

// TestVerifierCredentialGoesToOneOrigin: the verifier's credential goes to the consentd the
// site's own public resources are first fetched from, never to another host that a tag on the
// page calls with a consentd-shaped path; a consent post to such a host is answered inside the
// browser, so that it records nothing anywhere.
func TestVerifierCredentialGoesToOneOrigin(t *testing.T) {
	v := &verifier{vo: VerifyOptions{Credential: "secret-credential", ProjectKey: "site-key"}}
	rw := v.rewrite(core.RulePlace{Location: "FR"}, false)
	req := func(method, origin, key, resource string) *http.Request {
		r, err := http.NewRequest(method, origin+core.PublicPath(key, resource), strings.NewReader(`{"visitorId":"v1"}`))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	type step struct {
		r          *http.Request
		credential bool // the credential and place go with the request
		local      bool // answered inside the browser
	}
	for i, s := range []step{
		// another site's resources on any host pin nothing and get nothing
		{req(http.MethodGet, "https://cmp.example", "other-key", core.PublicConfigPath), false, false},
		// the site's own resources, first fetched from cmp.example: the credential's origin
		{req(http.MethodGet, "https://cmp.example", "site-key", core.PublicConfigPath), true, false},
		// a tag calling its own host with the site's key and consentd's path
		{req(http.MethodGet, "https://evil.example", "site-key", core.PublicConfigPath), false, false},
		{req(http.MethodPost, "https://evil.example", "site-key", core.PublicConsentPath), false, true},
		{req(http.MethodPost, "https://cmp.example", "site-key", core.PublicConsentPath), true, false},
	} {
		local := rw(s.r)
		if got := s.r.Header.Get(vcred.Header) != ""; got != s.credential {
			t.Errorf("step %d (%s %s): credential sent %v, want %v", i, s.r.Method, s.r.URL, got, s.credential)
		}
		if got := s.r.Header.Get(vcred.LocationHeader) == "FR"; got != s.credential {
			t.Errorf("step %d (%s %s): place sent %v, want %v", i, s.r.Method, s.r.URL, got, s.credential)
		}
		if (local != nil) != s.local || (local != nil && local.Status != http.StatusCreated) {
			t.Errorf("step %d (%s %s): answered locally %+v, want %v", i, s.r.Method, s.r.URL, local, s.local)
		}
	}
}
