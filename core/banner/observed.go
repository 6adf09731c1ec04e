package banner

import (
	"regexp"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// Limits of service cookies (as the API states them), which observed cookies must fit.
const (
	MaxCookieNameSize     = 200
	MaxCookieDurationSize = 100
)

// AddObservedCookies completes a service made from the library with what a scan observed: a
// library cookie without a stated duration takes the observed one, and an observed cookie the
// library does not list is added with its observed duration.
func (im Importer) AddObservedCookies(svc *Service, observed []core.ObservedCookie) {
	lib, _ := im.Catalog.Service(svc.Slug)
	for _, o := range observed {
		if o.Name == "" || len([]rune(o.Name)) > MaxCookieNameSize {
			continue
		}
		dur := o.Duration
		if dur == "" || len([]rune(dur)) > MaxCookieDurationSize {
			dur = library.DescribeDuration(0)
		}
		entry := -1
		if lib != nil {
			for i, c := range lib.Cookies {
				if libraryCookieMatches(c, o.Name) {
					entry = i
					break
				}
			}
		}
		if entry >= 0 {
			// The service's cookie created from this library entry (same order).
			if entry < len(svc.Cookies) && strings.TrimSpace(svc.Cookies[entry].Duration) == "" {
				svc.Cookies[entry].Duration = dur
			}
			continue
		}
		if hasCookie(svc, o.Name) {
			continue
		}
		svc.Cookies = append(svc.Cookies, &Cookie{
			ID: im.NewID(), ServiceID: svc.ID, Name: o.Name, Duration: dur,
			Description:             "Observed by a scan; not listed in the service library.",
			DescriptionTranslations: map[string]string{}, CreatedAt: svc.CreatedAt,
		})
	}
}

func hasCookie(svc *Service, name string) bool {
	for _, c := range svc.Cookies {
		if c.Name == name {
			return true
		}
	}
	return false
}

// libraryCookieMatches reports whether a library cookie entry names the cookie, by its match
// kind (exact, prefix, regular expression).
func libraryCookieMatches(c library.Cookie, name string) bool {
	switch c.Match {
	case library.MatchPrefix:
		return strings.HasPrefix(name, c.Name)
	case library.MatchRegex:
		re, err := regexp.Compile(c.Name)
		return err == nil && re.MatchString(name)
	}
	return c.Name == name
}
