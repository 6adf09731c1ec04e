package bunstore

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/consentd/consentd/core"
	bannerpkg "github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/tcf"
)

type banner struct {
	bun.BaseModel         `bun:"table:banners"`
	ID                    string                       `bun:"id,pk"`
	SiteID                string                       `bun:"site_id"`
	Template              string                       `bun:"template"`
	Position              string                       `bun:"position"`
	Colors                map[string]string            `bun:"colors,type:jsonb"`
	TextOverrides         map[string]string            `bun:"text_overrides,type:jsonb"`
	TextTranslations      map[string]map[string]string `bun:"text_translations,type:jsonb"`
	LogoURL               *string                      `bun:"logo_url"`
	PrivacyPolicyURL      *string                      `bun:"privacy_policy_url"`
	CookiePolicyURL       *string                      `bun:"cookie_policy_url"`
	DefaultBehavior       string                       `bun:"default_behavior"`
	CloseButtonBehavior   string                       `bun:"close_button_behavior"`
	CookieExpirationDays  int                          `bun:"cookie_expiration_days"`
	ConsentVersion        int                          `bun:"consent_version"`
	SiteWideBlocking      bool                         `bun:"site_wide_blocking"`
	GCMExcludeVendor      bool                         `bun:"gcm_exclude_vendor"`
	StorefrontIntegration bool                         `bun:"storefront_integration"`
	ReopenButton          bool                         `bun:"reopen_button"`
	ReopenPosition        string                       `bun:"reopen_position"`
	ReopenLabel           *string                      `bun:"reopen_label"`
	CookieDomain          *string                      `bun:"cookie_domain"`
	ReaskAfterRejectDays  *int                         `bun:"reask_after_reject_days"`
	RegionRules           []bannerpkg.RegionRule       `bun:"region_rules,type:jsonb"`
	TCF                   tcf.TCFSettings              `bun:"tcf,type:jsonb"`
	GPP                   gpp.GPPSettings              `bun:"gpp,type:jsonb"`
	CreatedAt             time.Time                    `bun:"created_at"`
	UpdatedAt             time.Time                    `bun:"updated_at"`
}

func fromBanner(b *bannerpkg.Banner) *banner {
	return &banner{
		ID: b.ID, SiteID: b.SiteID, Template: b.Template, Position: b.Position, Colors: b.Colors,
		TextOverrides: b.TextOverrides, TextTranslations: b.TextTranslations, LogoURL: b.LogoURL,
		PrivacyPolicyURL: b.PrivacyPolicyURL, CookiePolicyURL: b.CookiePolicyURL,
		DefaultBehavior: b.DefaultBehavior, CloseButtonBehavior: b.CloseButtonBehavior,
		CookieExpirationDays: b.CookieExpirationDays, ConsentVersion: b.ConsentVersion,
		SiteWideBlocking: b.SiteWideBlocking, GCMExcludeVendor: b.GCMExcludeVendor,
		StorefrontIntegration: b.StorefrontIntegration, ReopenButton: b.ReopenButton, ReopenPosition: b.ReopenPosition,
		ReopenLabel: b.ReopenLabel, CookieDomain: b.CookieDomain, RegionRules: orSlice(b.RegionRules),
		ReaskAfterRejectDays: b.ReaskAfterRejectDays,
		TCF:                  b.TCF.Clone(), GPP: b.GPP.Clone(), CreatedAt: b.CreatedAt, UpdatedAt: b.UpdatedAt,
	}
}

func (b *banner) core() *bannerpkg.Banner {
	return &bannerpkg.Banner{
		ID: b.ID, SiteID: b.SiteID, Template: b.Template, Position: b.Position, Colors: orMap(b.Colors),
		TextOverrides: orMap(b.TextOverrides), TextTranslations: orMap(b.TextTranslations), LogoURL: b.LogoURL,
		PrivacyPolicyURL: b.PrivacyPolicyURL, CookiePolicyURL: b.CookiePolicyURL,
		DefaultBehavior: b.DefaultBehavior, CloseButtonBehavior: b.CloseButtonBehavior,
		CookieExpirationDays: b.CookieExpirationDays, ConsentVersion: b.ConsentVersion,
		SiteWideBlocking: b.SiteWideBlocking, GCMExcludeVendor: b.GCMExcludeVendor, ConsentMode: bannerpkg.ConsentModeOf(b.GCMExcludeVendor),
		StorefrontIntegration: b.StorefrontIntegration, ReopenButton: b.ReopenButton, ReopenPosition: b.ReopenPosition,
		ReopenLabel: b.ReopenLabel, CookieDomain: b.CookieDomain, RegionRules: orSlice(b.RegionRules),
		ReaskAfterRejectDays: b.ReaskAfterRejectDays,
		TCF:                  b.TCF.Clone(), GPP: b.GPP.Clone(), CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC(),
	}
}

// CreateBanner implements core.BannerStore.
func (s *Store) CreateBanner(ctx context.Context, b *bannerpkg.Banner) error {
	if err := newID("banner", b.ID); err != nil {
		return err
	}
	if err := findIDs("site", b.SiteID); err != nil {
		return core.Wrap(core.CodeNotFound, err, "banner refers to a row that does not exist")
	}
	if err := storable("banner", b); err != nil {
		return err
	}
	_, err := s.db.NewInsert().Model(fromBanner(b)).Exec(ctx)
	return translate(err, "banner")
}

// Banner implements core.BannerStore.
func (s *Store) Banner(ctx context.Context, siteID string) (*bannerpkg.Banner, error) {
	if err := findIDs("banner", siteID); err != nil {
		return nil, err
	}
	var m banner
	if err := s.locked(s.db.NewSelect().Model(&m).Where("site_id = ?", siteID)).Scan(ctx); err != nil {
		return nil, translate(err, "banner")
	}
	return m.core(), nil
}

// UpdateBanner implements core.BannerStore.
func (s *Store) UpdateBanner(ctx context.Context, b *bannerpkg.Banner) error {
	if err := findIDs("banner", b.SiteID); err != nil {
		return err
	}
	if err := storable("banner", b); err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(fromBanner(b)).ExcludeColumn("id", "site_id", "created_at").
		Where("site_id = ?", b.SiteID).Exec(ctx)
	return mustAffect(res, err, "banner")
}
