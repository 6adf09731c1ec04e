package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestTCFFromFile: with CONSENTD_TCF_GVL_FILE and a CMP ID, the list is in the store before the
// first request, a site turns TCF on with vendors from it, and a French visitor's configuration says TCF applies.
func TestTCFFromFile(t *testing.T) {
	t.Parallel()
	s := newGeoServer(t, func(c *Config) {
		c.CountryHeader, c.TCFGVLFile, c.TCFCMPID, c.TCFCMPVersion = "CF-IPCountry", "../testdata/tcf/vendor-list-v17.json", 4095, 3
	})
	if res, b := s.do("PATCH", "/sites/"+s.siteID+"/banner", `{"tcf":{"enabled":true,"vendorIds":[755,1],"publisherCountryCode":"FR"}}`); res.StatusCode != 200 {
		t.Fatalf("enable TCF: %d %s", res.StatusCode, b)
	}
	_, b := s.do("GET", "/public/"+s.projectKey+"/config", "", "CF-IPCountry", "FR")
	var cfg struct{ TCF bool }
	if err := json.Unmarshal(b, &cfg); err != nil || !cfg.TCF {
		t.Fatalf("French visitor's config: tcf %t %v", cfg.TCF, err)
	}
}

// TestTCFSettingsRefused: a CMP ID the TC string cannot carry, or a GVL file that is not one,
// stops the start with a message naming the setting.
func TestTCFSettingsRefused(t *testing.T) {
	t.Parallel()
	db := "sqlite://" + filepath.Join(t.TempDir(), "x.db")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{DatabaseURL: db, TCFCMPID: 1}, "CONSENTD_TCF_CMP_ID"},
		{Config{DatabaseURL: db, TCFCMPID: 300, TCFCMPVersion: 5000}, "CONSENTD_TCF_CMP_VERSION"},
		{Config{DatabaseURL: db, TCFGVLFile: "../testdata/tcf/SOURCE.md"}, "CONSENTD_TCF_GVL_FILE"},
	} {
		a, err := New(context.Background(), c.cfg)
		if err == nil {
			a.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.cfg, err, c.want)
		}
	}
}
