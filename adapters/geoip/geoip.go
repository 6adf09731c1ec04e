// Package geoip is the core.Geolocator over MaxMind DB (MMDB) files: the country database
// embedded in the binary (geo-whois-asn-country, see db/SOURCE.md), or an operator's database
// such as DB-IP Lite City, GeoLite2 City or Country, or IPinfo Lite, which then also gives the
// subdivision where its records carry one.
package geoip

import (
	_ "embed"
	"fmt"
	"net/netip"
	"path/filepath"
	"strings"

	"github.com/oschwald/maxminddb-golang/v2"

	"github.com/consentd/consentd/core"
)

// The embedded database: see db/SOURCE.md for where it comes from and how to update it.
var (
	//go:embed db/geo-whois-asn-country.mmdb
	embedded []byte
)

const (
	embeddedName    = "geo-whois-asn-country"
	embeddedVersion = "@ip-location-db/geo-whois-asn-country-mmdb@2.3.2026061719"
	embeddedLicence = "CC0-1.0 (ip-location-db by sapics); built from the regional Internet registries' data, CC BY 4.0 by the Number Resource Organization (nro.net)"
	// operatorLicence is what is known of an operator's file's licence: MMDB metadata has no
	// field for it.
	operatorLicence = "the operator's: the database's provider sets it (DB-IP Lite: CC BY 4.0; GeoLite2: MaxMind's GeoLite EULA; IPinfo Lite: CC BY-SA 4.0)"
)

// Reader locates addresses in one MMDB database. It is safe for concurrent use.
type Reader struct {
	db   *maxminddb.Reader
	info core.GeoDatabase
}

var _ core.Geolocator = (*Reader)(nil)

// OpenEmbedded opens the country database embedded in the binary. It reads the embedded bytes
// in place: it copies nothing.
func OpenEmbedded() (*Reader, error) {
	db, err := maxminddb.OpenBytes(embedded)
	if err != nil {
		return nil, fmt.Errorf("geoip: the embedded database: %w", err)
	}
	return newReader(db, core.GeoDatabase{Name: embeddedName, Source: "embedded", Version: embeddedVersion, Licence: embeddedLicence}), nil
}

// Open opens the MMDB file at path (memory-mapped where the system allows).
func Open(path string) (*Reader, error) {
	db, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("geoip: %s: %w", path, err)
	}
	name := db.Metadata.DatabaseType
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return newReader(db, core.GeoDatabase{Name: name, Source: path, Licence: operatorLicence}), nil
}

func newReader(db *maxminddb.Reader, info core.GeoDatabase) *Reader {
	if db.Metadata.BuildEpoch != 0 {
		info.Built = db.Metadata.BuildTime().UTC()
	}
	info.Subdivisions = strings.Contains(strings.ToLower(db.Metadata.DatabaseType), "city")
	return &Reader{db: db, info: info}
}

// isoCode is a record's {"iso_code": ...} map.
type isoCode struct {
	ISOCode string `maxminddb:"iso_code"`
}

// subdivision is one of a record's subdivisions: its code, or where the database gives none
// (DB-IP), its English name.
type subdivision struct {
	ISOCode string `maxminddb:"iso_code"`
	Names   struct {
		EN string `maxminddb:"en"`
	} `maxminddb:"names"`
}

// record is what Locate reads of a record, in the layouts of the databases it knows:
// ip-location-db and IPinfo Lite put the country in country_code; MaxMind's and DB-IP's put it
// in country.iso_code (registered_country.iso_code when the record has no country, as for some
// anycast ranges) and the subdivisions, largest first, in subdivisions[].iso_code ("CA", the
// part after the country), or, in DB-IP's, only in subdivisions[].names.en ("California").
// Other fields are skipped undecoded.
type record struct {
	CountryCode       string        `maxminddb:"country_code"`
	Country           isoCode       `maxminddb:"country"`
	RegisteredCountry isoCode       `maxminddb:"registered_country"`
	Subdivisions      []subdivision `maxminddb:"subdivisions"`
}

// Locate returns where addr is: the record's country and, when it has subdivisions, the largest
// of them as the Region ("US-CA"). An address the database does not know is the zero Location,
// and so is a private, loopback, link-local or multicast one, whatever the database says (the
// embedded one places 192.168.0.0/16 in Australia).
func (r *Reader) Locate(addr netip.Addr) (core.Location, error) {
	addr = addr.Unmap().WithZone("")
	if !addr.IsValid() || addr.IsPrivate() || addr.IsLoopback() || addr.IsLinkLocalUnicast() ||
		addr.IsMulticast() || addr.IsUnspecified() {
		return core.Location{}, nil
	}
	res := r.db.Lookup(addr)
	if !res.Found() {
		return core.Location{}, wrap(res.Err())
	}
	var rec record
	if err := res.Decode(&rec); err != nil {
		return core.Location{}, wrap(err)
	}
	country := rec.CountryCode
	if country == "" {
		country = rec.Country.ISOCode
	}
	if country == "" {
		country = rec.RegisteredCountry.ISOCode
	}
	var region string
	if len(rec.Subdivisions) > 0 {
		region = rec.Subdivisions[0].ISOCode
		if region == "" {
			region = subdivisionNames[country][rec.Subdivisions[0].Names.EN]
		}
	}
	return core.LocationOf(country, region), nil
}

func wrap(err error) error {
	if err == nil {
		return nil
	}
	return core.Wrap(core.CodeInternal, err, "geoip: a corrupt database record")
}

// Database describes the database r reads.
func (r *Reader) Database() core.GeoDatabase { return r.info }

// Close releases the database (a file's mapping).
func (r *Reader) Close() error { return r.db.Close() }
