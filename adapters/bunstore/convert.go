package bunstore

import (
	"time"

	"github.com/consentd/consentd/core"
)

func fromBanner(b *core.Banner) *banner {
	return &banner{
		ID: b.ID, SiteID: b.SiteID, Template: b.Template, Position: b.Position, Colors: b.Colors,
		TextOverrides: b.TextOverrides, TextTranslations: b.TextTranslations, LogoURL: b.LogoURL,
		PrivacyPolicyURL: b.PrivacyPolicyURL, CookiePolicyURL: b.CookiePolicyURL,
		DefaultBehavior: b.DefaultBehavior, CloseButtonBehavior: b.CloseButtonBehavior,
		CookieExpirationDays: b.CookieExpirationDays, ConsentVersion: b.ConsentVersion,
		SiteWideBlocking: b.SiteWideBlocking, GCMExcludeVendor: b.GCMExcludeVendor,
		StorefrontIntegration: b.StorefrontIntegration, ReopenButton: b.ReopenButton, ReopenPosition: b.ReopenPosition,
		ReopenLabel: b.ReopenLabel, CookieDomain: b.CookieDomain, CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

func (b *banner) core() *core.Banner {
	return &core.Banner{
		ID: b.ID, SiteID: b.SiteID, Template: b.Template, Position: b.Position, Colors: orMap(b.Colors),
		TextOverrides: orMap(b.TextOverrides), TextTranslations: orMap(b.TextTranslations), LogoURL: b.LogoURL,
		PrivacyPolicyURL: b.PrivacyPolicyURL, CookiePolicyURL: b.CookiePolicyURL,
		DefaultBehavior: b.DefaultBehavior, CloseButtonBehavior: b.CloseButtonBehavior,
		CookieExpirationDays: b.CookieExpirationDays, ConsentVersion: b.ConsentVersion,
		SiteWideBlocking: b.SiteWideBlocking, GCMExcludeVendor: b.GCMExcludeVendor,
		StorefrontIntegration: b.StorefrontIntegration, ReopenButton: b.ReopenButton, ReopenPosition: b.ReopenPosition,
		ReopenLabel: b.ReopenLabel, CookieDomain: b.CookieDomain, CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(),
	}
}

func fromCategory(c *core.Category) *category {
	return &category{
		ID: c.ID, SiteID: c.SiteID, Slug: c.Slug, Name: c.Name, Description: c.Description,
		NameTranslations: orMap(c.NameTranslations), DescriptionTranslations: orMap(c.DescriptionTranslations),
		IsRequired: c.IsRequired, IsDefault: c.IsDefault, SortOrder: c.SortOrder, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
	}
}

func (c *category) core() *core.Category {
	return &core.Category{
		ID: c.ID, SiteID: c.SiteID, Slug: c.Slug, Name: c.Name, Description: c.Description,
		NameTranslations: orMap(c.NameTranslations), DescriptionTranslations: orMap(c.DescriptionTranslations),
		IsRequired: c.IsRequired, IsDefault: c.IsDefault, SortOrder: c.SortOrder, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
}

func fromService(s *core.Service) (*service, []*cookie) {
	m := &service{
		ID: s.ID, SiteID: s.SiteID, CategoryID: s.CategoryID, Slug: s.Slug, Label: s.Label, Description: s.Description,
		LabelTranslations: orMap(s.LabelTranslations), DescriptionTranslations: orMap(s.DescriptionTranslations),
		ServiceURL: s.ServiceURL, PrivacyPolicyURL: s.PrivacyPolicyURL, LogoURL: s.LogoURL,
		BlockingPatterns: orSlice(s.BlockingPatterns), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
	}
	cs := make([]*cookie, len(s.Cookies))
	for i, c := range s.Cookies {
		cs[i] = &cookie{
			ID: c.ID, ServiceID: s.ID, Position: i, Name: c.Name, Description: c.Description, Duration: c.Duration,
			DescriptionTranslations: orMap(c.DescriptionTranslations), CreatedAt: c.CreatedAt,
		}
	}
	return m, cs
}

func (s *service) core(cookies []cookie) *core.Service {
	out := &core.Service{
		ID: s.ID, SiteID: s.SiteID, CategoryID: s.CategoryID, Slug: s.Slug, Label: s.Label, Description: s.Description,
		LabelTranslations: orMap(s.LabelTranslations), DescriptionTranslations: orMap(s.DescriptionTranslations),
		ServiceURL: s.ServiceURL, PrivacyPolicyURL: s.PrivacyPolicyURL, LogoURL: s.LogoURL,
		BlockingPatterns: s.BlockingPatterns, CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC(),
		Cookies: make([]*core.Cookie, 0, len(cookies)),
	}
	for _, c := range cookies {
		out.Cookies = append(out.Cookies, &core.Cookie{
			ID: c.ID, ServiceID: c.ServiceID, Name: c.Name, Description: c.Description, Duration: c.Duration,
			DescriptionTranslations: orMap(c.DescriptionTranslations), CreatedAt: c.CreatedAt.UTC(),
		})
	}
	return out
}

func fromScan(s *core.Scan) *scan {
	return &scan{
		ID: s.ID, SiteID: s.SiteID, URL: s.URL, URLs: orSlice(s.URLs), Status: s.Status,
		DetectedServices: s.DetectedServices, UnrecognizedScripts: s.UnrecognizedScripts, PageErrors: s.PageErrors,
		PagesScanned: s.PagesScanned, ErrorMessage: s.ErrorMessage, CreatedAt: s.CreatedAt,
		StartedAt: s.StartedAt, FinishedAt: s.FinishedAt,
	}
}

func (s *scan) core() *core.Scan {
	return &core.Scan{
		ID: s.ID, SiteID: s.SiteID, URL: s.URL, URLs: orSlice(s.URLs), Status: s.Status,
		DetectedServices: s.DetectedServices, UnrecognizedScripts: s.UnrecognizedScripts, PageErrors: s.PageErrors,
		PagesScanned: s.PagesScanned, ErrorMessage: s.ErrorMessage, CreatedAt: s.CreatedAt.UTC(),
		StartedAt: utc(s.StartedAt), FinishedAt: utc(s.FinishedAt),
	}
}

func orMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

func orSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
