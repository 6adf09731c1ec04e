package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGeoIPCommand: consentd geoip names the embedded database, its build date and licence,
// and places the addresses it is given; CONSENTD_GEOIP_DB replaces the database.
func TestGeoIPCommand(t *testing.T) {
	t.Parallel()
	out, stderr, err := runCLI(t, nil, "geoip", "80.67.169.12", "8.8.8.8", "202.12.27.33", "2001:4860:4860::8888", "10.0.0.1")
	if err != nil {
		t.Fatalf("geoip: %v %s", err, stderr)
	}
	for _, want := range []string{
		"database:  geo-whois-asn-country\n", "source:    embedded\n",
		"version:   @ip-location-db/geo-whois-asn-country-mmdb@2.3.2026061719\n",
		"built:     2026-06-17T19:51:40Z\n", "licence:   CC0-1.0", "nro.net", "regions:   no (country only)\n",
		"80.67.169.12          FR       gdpr\n", "8.8.8.8               US       ccpa\n",
		"202.12.27.33          JP       none\n", "2001:4860:4860::8888  US       ccpa\n",
		"10.0.0.1              unknown  none\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("geoip prints no %q:\n%s", want, out)
		}
	}
	file, err := filepath.Abs("../../adapters/geoip/db/geo-whois-asn-country.mmdb")
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, err = runCLI(t, []string{"CONSENTD_GEOIP_DB=" + file}, "geoip", "193.0.6.139")
	if err != nil || !strings.Contains(out, "source:    "+file+"\n") || !strings.Contains(out, "193.0.6.139  NL  gdpr\n") ||
		!strings.Contains(out, "licence:   the operator's") || strings.Contains(out, "version:") {
		t.Errorf("geoip with CONSENTD_GEOIP_DB: %v %s\n%s", err, stderr, out)
	}
	if _, stderr, err = runCLI(t, nil, "geoip", "not-an-address"); err == nil || !strings.Contains(stderr, `"not-an-address" is not an IP address`) {
		t.Errorf("geoip not-an-address: %v %s", err, stderr)
	}
	missing := filepath.Join(t.TempDir(), "missing.mmdb")
	if _, stderr, err = runCLI(t, nil, "geoip", "--geoip-db", missing); err == nil || !strings.Contains(stderr, missing) {
		t.Errorf("geoip --geoip-db missing: %v %s", err, stderr)
	}
}
