package core_test

import (
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

func TestPageURL(t *testing.T) {
	for in, want := range map[string]string{
		"": "",
		"https://Shop.Example/checkout?email=a@b.c#x": "https://shop.example/checkout",
		"https://user:pw@shop.example:443/a":          "https://shop.example/a",
		"http://shop.example:80":                      "http://shop.example/",
		"http://shop.example:8080/a b":                "http://shop.example:8080/a%20b",
		"https://[::1]:8443/x?y":                      "https://[::1]:8443/x",
	} {
		got, err := consent.PageURL(in)
		if err != nil || got != want {
			t.Errorf("PageURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"javascript:alert(1)", "/relative", "https://", "ftp://x.example/", "https://x.example/\x00", "https://x.example/" + string(make([]byte, core.MaxURL))} {
		if _, err := consent.PageURL(in); core.ErrorCode(err) != core.CodeInvalid {
			t.Errorf("PageURL(%q): %v, want a validation error", in, err)
		}
	}
}

func TestUserAgentFamily(t *testing.T) {
	for ua, want := range map[string]string{
		"": "",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36":                         "Chrome desktop",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0":           "Edge desktop",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0":                                                                  "Firefox desktop",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1": "Safari mobile",
		"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36":                                "Chrome mobile",
		"curl/8.5.0": "other desktop",
	} {
		if got := consent.UserAgentFamily(ua); got != want {
			t.Errorf("UserAgentFamily(%q) = %q, want %q", ua, got, want)
		}
	}
}

func TestConsentCursor(t *testing.T) {
	r := &consent.ConsentRecord{ID: "0193c1d2-0000-7000-8000-000000000001", CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 123456000, time.UTC)}
	k, err := consent.DecodeConsentCursor(consent.EncodeConsentCursor(r))
	if err != nil || k.ID != r.ID || !k.CreatedAt.Equal(r.CreatedAt) {
		t.Fatalf("round trip: %+v %v", k, err)
	}
	for _, c := range []string{"", "!!", "bm9wZQ", "MjAyNi0wMy0wMVQxMDowMDowMFp8", string(make([]byte, consent.MaxConsentCursor+1))} {
		if _, err := consent.DecodeConsentCursor(c); core.ErrorCode(err) != core.CodeInvalid {
			t.Errorf("cursor %q: %v", c, err)
		}
	}
}

// TestConsentCanonical pins the canonical form the documentation specifies: a change to it
// breaks every stored chain, so it must be deliberate.
func TestConsentCanonical(t *testing.T) {
	r := &consent.ConsentRecord{ID: "id1", SiteID: "site1", CreatedAt: time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("x", 3600)),
		VisitorHash: "vh", IPCountry: "DE", Jurisdiction: "gdpr", Action: "custom",
		CategoriesConsented: map[string]bool{"statistics": true, "essential": true, "marketing": false},
		GPCSignal:           true, ConsentVersion: 3, PageURL: "https://x.example/p", UserAgent: "Chrome desktop", SnapshotHash: "sh"}
	want := "consentd-record-v1\tid1\tsite1\t2026-03-01T09:00:00.000000Z\tvh\tDE\tgdpr\tcustom\tessential=1,marketing=0,statistics=1\ttrue\tfalse\t3\thttps://x.example/p\tChrome desktop\tsh"
	if got := consent.ConsentCanonical(r); got != want {
		t.Fatalf("canonical form:\n got %q\nwant %q", got, want)
	}
	// sha256("000…0\na\nb\n"), computed with Python's hashlib.
	if h := consent.ConsentBatchHash(core.GenesisHash, []string{"a", "b"}); h != "e21f89889f41fefca3f99b3fb5969543c1ef8b2648100b1bc7d822c87cebb822" {
		t.Fatalf("batch hash %s", h)
	}
}
