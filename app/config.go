package app

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core/tcf"
)

// Validate reports every setting that cannot work, one line per problem naming the setting,
// before anything is opened, created or bound.
func (c Config) Validate() error {
	var errs []error
	if c.Addr != "" {
		if err := validateAddr(c.Addr); err != nil {
			errs = append(errs, fmt.Errorf("addr (CONSENTD_ADDR) %q: %w", c.Addr, err))
		}
	}
	if err := validateDatabaseURL(c.DatabaseURL); err != nil {
		errs = append(errs, fmt.Errorf("database-url (CONSENTD_DATABASE_URL) %q: %w", c.DatabaseURL, err))
	}
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("workers (CONSENTD_WORKERS) %d: must be 0 or more", c.Workers))
	}
	if c.PublicRateLimit < 0 {
		errs = append(errs, fmt.Errorf("public-rate-limit (CONSENTD_PUBLIC_RATE_LIMIT) %g: must be 0 (off) or more", c.PublicRateLimit))
	}
	for _, p := range c.TrustedProxies {
		if _, err := parsePrefix(p); err != nil {
			errs = append(errs, fmt.Errorf("trusted-proxies (CONSENTD_TRUSTED_PROXIES) %q: expected CIDRs or IP addresses separated by commas, e.g. 10.0.0.0/8,192.0.2.1", p))
		}
	}
	if c.TCFCMPID != 0 && (c.TCFCMPID < tcf.MinCMPID || c.TCFCMPID > tcf.MaxCMPID) {
		errs = append(errs, fmt.Errorf("tcf-cmp-id (CONSENTD_TCF_CMP_ID) %d: must be the CMP ID IAB Europe assigned you, %d to %d (0: none)", c.TCFCMPID, tcf.MinCMPID, tcf.MaxCMPID))
	}
	if c.TCFCMPVersion < 0 || c.TCFCMPVersion > tcf.MaxCMPVersion {
		errs = append(errs, fmt.Errorf("tcf-cmp-version (CONSENTD_TCF_CMP_VERSION) %d: must be 0 to %d", c.TCFCMPVersion, tcf.MaxCMPVersion))
	}
	errs = append(errs, validateScanSettings(c)...)
	return errors.Join(errs...)
}

// parsePrefix reads a CIDR or a single address (as its /32 or /128).
func parsePrefix(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return p, err
	}
	if p.Addr().Is4In6() {
		return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96), nil
	}
	return p.Masked(), nil
}

// trustedProxies parses validated CIDRs.
func trustedProxies(ss []string) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range ss {
		if p, err := parsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// validateAddr checks a listen address: host:port with a port from 0 to 65535.
func validateAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("expected HOST:PORT, e.g. 127.0.0.1:8080 or :8080")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q: expected a number from 0 to 65535", port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("host %q: expected a host name or IP address", host)
	}
	return nil
}

// validateDatabaseURL checks the scheme and, for SQLite, that the file's directory exists.
func validateDatabaseURL(u string) error {
	switch {
	case strings.HasPrefix(u, "sqlite://"):
		path := strings.TrimPrefix(u, "sqlite://")
		if path == "" {
			return errors.New("empty path (use sqlite://consentd.db)")
		}
		if dir := filepath.Dir(path); dir != "." {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("directory %s does not exist (create it first)", dir)
			}
		}
		return nil
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return nil
	}
	return errors.New("expected sqlite://PATH or postgres://USER@HOST/DB")
}
