package app

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestValidateScanSettings: every scan setting that cannot work is reported, naming the
// setting, before anything is opened.
func TestValidateScanSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := Config{DatabaseURL: "sqlite://" + filepath.Join(dir, "c.db")}
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
		want string
	}{
		{"connect-to", func(c *Config) { c.ScanConnectTo = []string{"a:80:b"} }, "scan-connect-to (CONSENTD_SCAN_CONNECT_TO)"},
		{"connect-to port", func(c *Config) { c.ScanConnectTo = []string{"a:80:b:99999"} }, "scan-connect-to (CONSENTD_SCAN_CONNECT_TO)"},
		{"ca missing", func(c *Config) { c.ScanCACert = filepath.Join(dir, "none.pem") }, "scan-ca-cert (CONSENTD_SCAN_CA_CERT)"},
		{"mode", func(c *Config) { c.ScanMode = "browser" }, "scan-mode (CONSENTD_SCAN_MODE)"},
		{"browsers", func(c *Config) { c.ScanBrowsers = -1 }, "scan-browsers (CONSENTD_SCAN_BROWSERS)"},
	} {
		cfg := base
		tc.cfg(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
	ok := base
	ok.ScanConnectTo, ok.ScanMode, ok.ScanBrowsers = []string{"::127.0.0.1:8443", "www.example.com:443:[::1]:"}, "deep", 2
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid scan settings refused: %v", err)
	}
}

func TestTuneGCLeavesAnOperatorsGOGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	tuneGC(func(k string) string {
		if k == "GOGC" {
			return "150"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC set by the operator, yet the target became %d", got)
	}
	tuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != ServerGCPercent {
		t.Fatalf("no GOGC: target %d, want %d", got, ServerGCPercent)
	}
}
