// Package textfmt holds the console's pure text helpers: how times, counts, identifiers,
// shares and query strings read on a page. They take values and return text, know nothing of
// requests or sessions, and are the template functions of the same names.
package textfmt

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// timeLayout is how the console writes an instant: in UTC, day first, to the minute.
const timeLayout = "2 Jan 2006, 15:04 UTC"

// Time writes t for a reader ("" for the zero time).
func Time(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// PTime is Time of an optional instant ("" for nil).
func PTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return Time(*t)
}

// ISO writes t as RFC 3339 in UTC, for datetime attributes.
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Deref is an optional string's value ("" for nil).
func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Paths writes URLs as their paths, space-separated (a URL without one as it is).
func Paths(urls []string) string {
	out := make([]string, len(urls))
	for i, u := range urls {
		if p, err := url.Parse(u); err == nil && p.Path != "" {
			u = p.Path
		}
		out[i] = u
	}
	return strings.Join(out, " ")
}

// Pct is n of d as a whole percentage, rounded half up (0 when d is 0).
func Pct(n, d int) int {
	if d == 0 {
		return 0
	}
	return (n*100 + d/2) / d
}

// Query encodes key-value pairs as a query string, leaving out empty values.
func Query(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	return v.Encode()
}

// Plural writes a count with the noun's singular or plural form ("1 site", "3 sites").
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// IsHex reports whether s is a colour as #rrggbb.
func IsHex(s string) bool { return hexColor.MatchString(s) }

// Human turns an identifier ("wide_bar", "bottom_left", "acceptLabel") into words.
func Human(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
		case r >= 'A' && r <= 'Z' && i > 0:
			b.WriteByte(' ')
			b.WriteRune(r + 'a' - 'A')
		case i == 0 && r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ParseDay reads a date filter: YYYY-MM-DD (the day's start, UTC) or an RFC 3339 instant.
func ParseDay(field, v string) (*time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, nil
	}
	if t, err := time.Parse("2006-01-02", v); err == nil {
		return &t, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return &t, nil
	}
	return nil, core.Errorf(core.CodeInvalid, "%s: enter a date as YYYY-MM-DD", field)
}
