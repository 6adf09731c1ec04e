package httpapi_test

import (
	"testing"
)

// TestPublicRateLimit: a client past its burst gets 429 with the error body; management
// endpoints are not limited.
func TestPublicRateLimit(t *testing.T) {
	t.Parallel()
	e, _ := proxiedEnv(t)
	codes := map[int]int{}
	for range 10 {
		codes[e.raw("GET", "/api/v1/public/pk_nope/config", "", "").status]++
	}
	// rate 1/s with a burst of 2: the first two reach the handler (404), the rest are refused
	if codes[404] < 2 || codes[404] > 3 || codes[429] < 7 {
		t.Fatalf("statuses %v", codes)
	}
	r := e.raw("GET", "/api/v1/public/pk_nope/config", "", "")
	e.want(r, 429, "rate_limited")
	if r.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	for range 10 {
		e.want(e.do("GET", "/api/v1/sites", nil), 200)
	}
}
