package geoip_test

import (
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"github.com/consentd/consentd/adapters/geoip"
	"github.com/consentd/consentd/core"
)

func TestEmbedded(t *testing.T) {
	t.Parallel()
	r, err := geoip.OpenEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for addr, want := range map[string]string{
		"80.67.169.12": "FR", "130.149.7.201": "DE", "193.0.6.139": "NL", "81.2.69.142": "GB",
		"8.8.8.8": "US", "202.12.27.33": "JP", "::ffff:8.8.8.8": "US",
		"2a01:e0c::1": "FR", "2001:638:1::1": "DE", "2001:67c:2e8::1": "NL", "2001:630::1": "GB",
		"2001:4860:4860::8888": "US", "2001:240::1": "JP", "fe80::1%eth0": "",
		// Private and reserved addresses are nowhere.
		"127.0.0.1": "", "10.1.2.3": "", "192.168.0.1": "", "::1": "", "fd00::1": "",
	} {
		got, err := r.Locate(netip.MustParseAddr(addr))
		if err != nil || got != (core.Location{Country: want}) {
			t.Errorf("Locate(%s) = %+v, %v; want country %q", addr, got, err, want)
		}
	}
	if got, err := r.Locate(netip.Addr{}); err != nil || got != (core.Location{}) {
		t.Errorf("Locate(invalid) = %+v, %v", got, err)
	}
	d := r.Database()
	if d.Name != "geo-whois-asn-country" || d.Source != "embedded" || !strings.Contains(d.Version, "2.3.2026061719") ||
		d.Subdivisions || !strings.Contains(d.Licence, "CC0-1.0") || !strings.Contains(d.Licence, "nro.net") {
		t.Errorf("Database() = %+v", d)
	}
	if want := time.Date(2026, 6, 17, 19, 51, 40, 0, time.UTC); !d.Built.Equal(want) {
		t.Errorf("Built = %v, want %v", d.Built, want)
	}
}

// writeCity writes an MMDB in the layout of GeoLite2 City and DB-IP City (country.iso_code,
// registered_country.iso_code, subdivisions[].iso_code) with a few networks.
func writeCity(t testing.TB) string {
	t.Helper()
	w, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-City", RecordSize: 24, BuildEpoch: 1767225600, IncludeReservedNetworks: true})
	if err != nil {
		t.Fatal(err)
	}
	iso := func(c string) mmdbtype.Map { return mmdbtype.Map{"iso_code": mmdbtype.String(c)} }
	names := mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String("ignored"), "de": mmdbtype.String("ignoriert")}}
	city := func(country string, subs ...string) mmdbtype.Map {
		m := mmdbtype.Map{"city": names, "country": iso(country), "registered_country": iso(country),
			"location": mmdbtype.Map{"latitude": mmdbtype.Float64(1), "longitude": mmdbtype.Float64(2)}}
		if subs != nil {
			s := mmdbtype.Slice{}
			for _, c := range subs {
				s = append(s, mmdbtype.Map{"iso_code": mmdbtype.String(c), "names": names})
			}
			m["subdivisions"] = s
		}
		return m
	}
	for cidr, rec := range map[string]mmdbtype.Map{
		"8.8.8.0/24":       city("US", "CA", "XX"),
		"2001:db8::/32":    city("CA", "QC"),
		"81.2.69.0/24":     city("GB", "ENG", "LND"),
		"80.67.169.0/24":   city("FR", "IDF"),
		"130.149.0.0/16":   city("DE"),
		"193.0.6.0/24":     city("NL", "Noord-Holland"),
		"203.0.113.0/24":   {"registered_country": iso("JP")},
		"198.51.100.0/24":  {"city": names},
		"2001:db9:ff::/48": city("us", "co"),
		"10.0.0.0/8":       city("AU"),
		// DB-IP's layout: subdivisions named, without codes.
		"192.0.2.0/25":   {"country": iso("US"), "subdivisions": mmdbtype.Slice{mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String("California")}}}},
		"192.0.2.128/26": {"country": iso("CA"), "subdivisions": mmdbtype.Slice{mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String("Québec")}}}},
		"192.0.2.192/26": {"country": iso("FR"), "subdivisions": mmdbtype.Slice{mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String("Île-de-France")}}}},
	} {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Insert(n, rec); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "city.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCityLayout(t *testing.T) {
	t.Parallel()
	path := writeCity(t)
	r, err := geoip.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for addr, want := range map[string]core.Location{
		"8.8.8.8":        {Country: "US", Region: "US-CA"},
		"::ffff:8.8.8.8": {Country: "US", Region: "US-CA"},
		"2001:db8::1":    {Country: "CA", Region: "CA-QC"},
		"81.2.69.142":    {Country: "GB", Region: "GB-ENG"},
		"80.67.169.12":   {Country: "FR", Region: "FR-IDF"},
		"130.149.7.201":  {Country: "DE"},
		"193.0.6.139":    {Country: "NL"}, // a subdivision that is no ISO 3166-2 code is dropped
		"203.0.113.9":    {Country: "JP"}, // no country: the registered country
		"198.51.100.7":   {},              // neither
		"2001:db9:ff::1": {Country: "US", Region: "US-CO"},
		"9.9.9.9":        {},
		"2001:db9::1":    {},
	} {
		got, err := r.Locate(netip.MustParseAddr(addr))
		if err != nil || got != want {
			t.Errorf("Locate(%s) = %+v, %v; want %+v", addr, got, err, want)
		}
	}
	d := r.Database()
	if d.Name != "GeoLite2-City" || d.Source != path || d.Version != "" || !d.Subdivisions ||
		!d.Built.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) || d.Licence == "" {
		t.Errorf("Database() = %+v", d)
	}
}

func TestOpenRefusesWhatIsNoMMDB(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "countries.csv")
	if err := os.WriteFile(path, []byte("1.0.0.0,1.0.0.255,AU\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := geoip.Open(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Open(csv) = %v, want an error naming the file", err)
	}
	if _, err := geoip.Open(filepath.Join(t.TempDir(), "missing.mmdb")); err == nil {
		t.Error("Open(missing) succeeded")
	}
}
