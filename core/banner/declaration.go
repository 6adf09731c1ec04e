package banner

import (
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// ConsentCookieName is the first-party cookie in which the banner runtime keeps the visitor's
// decision (COOKIE in bannerjs/boot.js); the declaration lists it under the required category.
const ConsentCookieName = "consentd"

// CookieRule names first-party cookies that the banner runtime deletes when a visitor withdraws
// Category: the documented names (Match "exact") and name prefixes (Match "prefix", e.g. "_ga_"
// for Google Analytics' _ga_<container-id>) of the category's services.
type CookieRule struct {
	Category string `json:"category"`
	Name     string `json:"name"`
	Match    string `json:"match"`
}

// CookieRules derives the rules of a site's optional categories from every service the
// runtime can name: the site's services (the library's first-party cookie names with their
// match kinds for services from the library, and the site's own cookie list, a name ending in
// "*" being a prefix) and the library services that a built-in blocking rule holds back on
// every site (blockingRules), under their library category, so that withdrawal deletes
// Google Analytics' or the Meta Pixel's cookies without any service configured.
func CookieRules(catalog core.Catalog, cats []*Category, svcs []*Service) []CookieRule {
	byID := make(map[string]*Category, len(cats))
	bySlug := make(map[string]*Category, len(cats))
	for _, c := range cats {
		byID[c.ID] = c
		bySlug[c.Slug] = c
	}
	out := []CookieRule{}
	add := func(r CookieRule) {
		if r.Name != "" && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	addLibrary := func(lib *library.Service, category string) {
		for _, k := range lib.Cookies {
			if k.Party == "third" || (k.Storage != "" && k.Storage != "cookie") || k.Match == library.MatchRegex {
				continue
			}
			add(CookieRule{Category: category, Name: k.Name, Match: k.Match})
		}
	}
	onSite := make(map[string]bool, len(svcs))
	for _, s := range svcs {
		onSite[s.Slug] = true
		c := byID[s.CategoryID]
		if c == nil || c.IsRequired {
			continue
		}
		if lib, ok := catalog.Service(s.Slug); ok {
			addLibrary(lib, c.Slug)
		}
		for _, k := range s.Cookies {
			if p, ok := strings.CutSuffix(k.Name, "*"); ok {
				add(CookieRule{Category: c.Slug, Name: p, Match: library.MatchPrefix})
			} else if !strings.ContainsAny(k.Name, " ;=,") {
				add(CookieRule{Category: c.Slug, Name: k.Name, Match: library.MatchExact})
			}
		}
	}
	for _, lib := range catalog.Services() {
		if onSite[lib.Slug] || !lib.BuiltinBlocking || len(lib.Scripts) == 0 {
			continue
		}
		if c := bySlug[lib.Category]; c != nil && !c.IsRequired {
			addLibrary(lib, c.Slug)
		}
	}
	return out
}

// Declaration is a site's cookie declaration in one language: every category with its
// services, their privacy policies and each cookie with its duration and purpose. It is
// computed from the site's current configuration, so it follows every change of services.
type Declaration struct {
	ProjectKey string `json:"projectKey"`
	SiteName   string `json:"siteName"`
	SiteURL    string `json:"siteUrl"`
	// Lang is the language of the texts, names and descriptions.
	Lang string `json:"lang"`
	// Dir is "rtl" when Lang is written right to left, else empty.
	Dir string `json:"dir,omitempty" doc:"rtl when lang is written right to left; absent for left to right."`
	// Texts are the runtime's texts in Lang, with the site's overrides and translations.
	Texts map[string]string `json:"texts"`
	// UpdatedAt is the latest change to the banner, categories or services.
	UpdatedAt  time.Time          `json:"updatedAt"`
	Categories []DeclaredCategory `json:"categories"`
}

// DeclaredCategory is a category of a Declaration.
type DeclaredCategory struct {
	Slug        string            `json:"slug"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	IsRequired  bool              `json:"isRequired"`
	Services    []DeclaredService `json:"services"`
}

// DeclaredService is a service of a DeclaredCategory.
type DeclaredService struct {
	Slug             string           `json:"slug"`
	Label            string           `json:"label"`
	Description      string           `json:"description"`
	PrivacyPolicyURL *string          `json:"privacyPolicyUrl"`
	Cookies          []DeclaredCookie `json:"cookies"`
	// Note explains, in plain words, cookie names that are prefixes ("_ga_*"); "" when none is.
	Note string `json:"note"`
}

// DeclaredCookie is a cookie (or storage key) of a DeclaredService. Type is "cookie",
// "localStorage" or "sessionStorage"; a session lifetime is in the declaration's language.
type DeclaredCookie struct {
	// Name is the cookie's name; a name prefix ends in "*" ("_ga_*") and has Prefix set.
	Name        string `json:"name"`
	Prefix      bool   `json:"prefix"`
	Type        string `json:"type"`
	Duration    string `json:"duration"`
	Description string `json:"description"`
}

// storageOf is where a cookie of a library service is kept, by the library's word.
// libraryPrefix reports whether the library documents name as a name prefix of lib's cookies.
func LibraryPrefix(lib *library.Service, name string) bool {
	if lib == nil {
		return false
	}
	for _, k := range lib.Cookies {
		if k.Name == name && k.Match == library.MatchPrefix {
			return true
		}
	}
	return false
}

func StorageOf(lib *library.Service, name string) string {
	if lib != nil {
		for _, k := range lib.Cookies {
			if k.Name == name {
				switch k.Storage {
				case "localStorage", "sessionStorage":
					return k.Storage
				}
			}
		}
	}
	return "cookie"
}

func Latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Translated returns the translation of a text for lang, or the text itself.
func Translated(tr map[string]string, lang, s string) string {
	if v := tr[lang]; v != "" {
		return v
	}
	return s
}
