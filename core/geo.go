package core

import (
	"net/netip"
	"strings"
	"time"
)

// Location is where the server places a visitor: the country, and the subdivision where it
// knows it. It decides the visitor's rule (VisitorRule); the visitor's address itself is never
// kept.
type Location struct {
	// Country is the ISO 3166-1 alpha-2 code in upper case ("FR"), "" when unknown.
	Country string
	// Region is the ISO 3166-2 subdivision code ("US-CA"), "" when unknown. When set, it
	// starts with Country and a hyphen.
	Region string
}

// LocationOf returns the location named by a country code and a subdivision code, as a
// trusted header or a geolocation database gives them: codes of any case and surrounding
// space, a subdivision either whole ("US-CA") or without its country ("CA"). A code that is
// not well formed is dropped, and so are the user-assigned codes that name no country (CDNs send
// XX for unknown) and a subdivision of another country than country; a whole subdivision code
// gives the country when country is empty.
func LocationOf(country, region string) Location {
	country = assignedCountry(strings.ToUpper(strings.TrimSpace(country)))
	region = strings.ToUpper(strings.TrimSpace(region))
	if c, sub, whole := strings.Cut(region, "-"); whole {
		if country == "" {
			country = assignedCountry(c)
		}
		if c != country {
			return Location{Country: country}
		}
		region = sub
	}
	if country == "" || !subdivisionCode(region) {
		return Location{Country: country}
	}
	return Location{Country: country, Region: country + "-" + region}
}

// assignedCountry is c when it is a well-formed ISO 3166-1 alpha-2 code outside the
// user-assigned ranges (AA, QM to QZ, XA to XZ, ZZ), "" otherwise.
func assignedCountry(c string) string {
	c = countryCode(c)
	if c == "AA" || c == "ZZ" || (c >= "QM" && c <= "QZ") || (c != "" && c[0] == 'X') {
		return ""
	}
	return c
}

// subdivisionCode reports whether s is the part of an ISO 3166-2 code after the country: one to
// three letters or digits.
func subdivisionCode(s string) bool {
	if len(s) < 1 || len(s) > 3 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Geolocator places a client address, offline, from a geolocation database. The address is
// only looked up: no Geolocator keeps it.
type Geolocator interface {
	// Locate returns where addr is, the zero Location when the database does not know it (a
	// private or reserved address, a range it lacks). It returns an internal error when the
	// database is corrupt where the lookup led.
	Locate(addr netip.Addr) (Location, error)
	// Database describes the database the Geolocator reads.
	Database() GeoDatabase
}

// GeoDatabase describes a geolocation database, as `consentd geoip` reports it.
type GeoDatabase struct {
	// Name names the database ("geo-whois-asn-country", "GeoLite2-City").
	Name string
	// Source is where it was read from: "embedded" or the file's path.
	Source string
	// Version is the published version of an embedded database, "" for a file.
	Version string
	// Built is when the database was built, zero when it does not say.
	Built time.Time
	// Licence is the database's licence and the attribution it requires.
	Licence string
	// Subdivisions reports whether the database's records carry subdivisions (a City
	// database), and so a Location's Region.
	Subdivisions bool
}
