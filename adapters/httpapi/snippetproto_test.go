package httpapi_test

import (
	"strings"
	"testing"
)

// TestSnippetSchemeFromTrustedProxy: the setup snippet's base URL is https when a trusted
// proxy says X-Forwarded-Proto: https, and the same header from any other peer is ignored
// (trustedproxy.Rule.HTTPS, the rule the console's Secure cookies follow).
func TestSnippetSchemeFromTrustedProxy(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		trusted []string
		want    string
	}{
		"trusted proxy":  {[]string{"127.0.0.0/8", "::1/128"}, `src="https://`},
		"untrusted peer": {nil, `src="http://`},
		"another proxy":  {[]string{"10.0.0.0/8"}, `src="http://`},
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := proxiedEnv(t, tc.trusted...)
			id, _ := e.site()
			r := e.want(e.raw("GET", "/api/v1/sites/"+id+"/setup-snippet", e.keyA, "", "X-Forwarded-Proto", "https"), 200)
			if code, _ := r.obj(t)["code"].(string); !strings.Contains(code, tc.want) {
				t.Errorf("snippet %q, want %s", code, tc.want)
			}
		})
	}
}
