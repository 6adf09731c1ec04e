package banner

import (
	"context"
	"slices"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	gpppkg "github.com/consentd/consentd/core/gpp"
	tcfpkg "github.com/consentd/consentd/core/tcf"
	"github.com/consentd/consentd/library"
)

// Banner enumerations (docs/banner.md), each read through the function of its name, which
// returns a fresh slice: the API's enums and the console's forms are pinned to them.
var (
	templates            = [...]string{"floating", "wide_bar", "modal"}
	positions            = [...]string{"bottom_left", "bottom_right", "top_left", "top_right", "bottom", "top", "center"}
	defaultBehaviors     = [...]string{BehaviorOptIn, BehaviorOptOut, BehaviorNoBanner}
	closeButtonBehaviors = [...]string{"accept_all", "reject_all", "dismiss"}
	colorKeys            = [...]string{"primary", "background", "text", "acceptButton", "rejectButton"}
	reopenPositions      = [...]string{"bottom_left", "bottom_right", "top_left", "top_right"}
	textKeyList          = textKeys()
)

// Default behaviours: what the banner does before a decision (DecidePolicy reads them).
const (
	BehaviorOptIn    = "opt_in"    // only required categories until the visitor decides
	BehaviorOptOut   = "opt_out"   // every category until the visitor opts out
	BehaviorNoBanner = "no_banner" // every category, and no banner asks
)

// Google Consent Mode's modes (Banner.ConsentMode): one setting with gcmExcludeVendor, which is
// its name in the contract (advanced is gcmExcludeVendor true).
const (
	// ConsentModeBasic holds Google's tags until the visitor allows their category, like any
	// other tag: nothing reaches Google before consent.
	ConsentModeBasic = "basic"
	// ConsentModeAdvanced lets Google's tags load at once with every signal denied (cookieless
	// pings, which Google uses to model conversions); the update after a decision grants what
	// the visitor allowed.
	ConsentModeAdvanced = "advanced"
)

var consentModes = [...]string{ConsentModeBasic, ConsentModeAdvanced}

// ConsentModes returns Google Consent Mode's modes.
func ConsentModes() []string { return slices.Clone(consentModes[:]) }

// ConsentModeOf returns the mode of a banner whose gcmExcludeVendor is gcmExcludeVendor: the
// stores read the one stored value through it.
func ConsentModeOf(gcmExcludeVendor bool) string {
	if gcmExcludeVendor {
		return ConsentModeAdvanced
	}
	return ConsentModeBasic
}

// Templates returns the banner's layouts.
func Templates() []string { return slices.Clone(templates[:]) }

// Positions returns where the banner may sit.
func Positions() []string { return slices.Clone(positions[:]) }

// DefaultBehaviors returns what the banner does before a decision.
func DefaultBehaviors() []string { return slices.Clone(defaultBehaviors[:]) }

// CloseButtonBehaviors returns what the banner's close button may do.
func CloseButtonBehaviors() []string { return slices.Clone(closeButtonBehaviors[:]) }

// ColorKeys returns the banner's colours.
func ColorKeys() []string { return slices.Clone(colorKeys[:]) }

// TextKeys returns the contract's banner texts followed by the runtime's other texts, which a
// site may override or translate too: the keys of the built-in English texts (core/i18n).
func TextKeys() []string { return slices.Clone(textKeyList) }

// ReopenPositions returns the corners the reopen ("privacy settings") button may sit in.
func ReopenPositions() []string { return slices.Clone(reopenPositions[:]) }

// Limits of the consent cookie's lifetime, in days.
const (
	MinCookieExpiration   = 1
	MaxCookieExpiration   = 730
	DefaultCookieLifetime = 365
)

// Banner is a site's consent-dialog configuration; there is one per site.
type Banner struct {
	ID                   string                       `json:"id"`
	SiteID               string                       `json:"siteId"`
	Template             string                       `json:"template"`
	Position             string                       `json:"position"`
	Colors               map[string]string            `json:"colors"`
	TextOverrides        map[string]string            `json:"textOverrides"`
	TextTranslations     map[string]map[string]string `json:"textTranslations"`
	LogoURL              *string                      `json:"logoUrl"`
	PrivacyPolicyURL     *string                      `json:"privacyPolicyUrl"`
	CookiePolicyURL      *string                      `json:"cookiePolicyUrl"`
	DefaultBehavior      string                       `json:"defaultBehavior"`
	CloseButtonBehavior  string                       `json:"closeButtonBehavior"`
	CookieExpirationDays int                          `json:"cookieExpirationDays"`
	ConsentVersion       int                          `json:"consentVersion"`
	SiteWideBlocking     bool                         `json:"-"`
	GCMExcludeVendor     bool                         `json:"gcmExcludeVendor"`
	// ConsentMode is GCMExcludeVendor as Google names it, one of ConsentModes: advanced lets
	// Google's tags load with Consent Mode's denied defaults, basic holds them until consent.
	// The stores keep one value (ConsentModeOf).
	ConsentMode           string `json:"consentMode"`
	StorefrontIntegration bool   `json:"storefrontIntegration"`
	// ReopenButton shows a small "privacy settings" button after a decision, unless the page
	// has its own [data-consentd-open] element; it reopens the preferences.
	ReopenButton bool `json:"reopenButton"`
	// ReopenPosition is the corner of the reopen button, one of ReopenPositions.
	ReopenPosition string `json:"reopenPosition"`
	// ReopenLabel is the reopen button's text; nil uses the visitor's language's reopenLabel.
	ReopenLabel *string `json:"reopenLabel"`
	// CookieDomain is the domain of the consent cookie (a parent of the site's host, at most
	// its registrable domain), so that a decision holds on every subdomain; nil keeps the
	// cookie on the host that set it.
	CookieDomain *string `json:"cookieDomain"`
	// ReaskAfterRejectDays is how long, in days, a refusal keeps the banner away (nil: the
	// default of the visitor's rule's behaviour, ReaskDefault); a regional rule may set its own.
	ReaskAfterRejectDays *int `json:"reaskAfterRejectDays"`
	// RegionRules are the banner's regional rules, in order (RegionRule); DefaultBehavior applies
	// to a visitor none of them matches, and to everyone when there are none.
	RegionRules []RegionRule `json:"regionRules"`
	// TCF are the site's IAB TCF settings (TCFSettings; docs/tcf.md).
	TCF tcfpkg.TCFSettings `json:"tcf"`
	// GPP are the site's IAB GPP settings (GPPSettings; docs/gpp.md).
	GPP gpppkg.GPPSettings `json:"gpp"`
	// BlockingRules is derived on read from the site's services and the catalog's built-in
	// rules; it is not stored.
	BlockingRules *BlockingRules `json:"blockingRules"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
}

// BlockingRules is what the banner runtime enforces: site-wide blocking of dynamically inserted
// scripts, and per service the URL patterns held back until its category is allowed.
type BlockingRules struct {
	SiteWide bool           `json:"siteWide"`
	Rules    []BlockingRule `json:"rules"`
}

// BlockingRule holds back scripts and iframes matching Patterns until CategorySlug is allowed.
type BlockingRule struct {
	ServiceSlug  string   `json:"serviceSlug"`
	CategorySlug string   `json:"categorySlug"`
	Patterns     []string `json:"patterns"`
}

// BannerStore persists banner configurations.
type BannerStore interface {
	// CreateBanner stores a site's banner; conflict when the site has one.
	CreateBanner(ctx context.Context, b *Banner) error
	// Banner finds the site's banner; not_found when there is none.
	Banner(ctx context.Context, siteID string) (*Banner, error)
	// UpdateBanner stores every field of b; not_found when the site has no banner.
	UpdateBanner(ctx context.Context, b *Banner) error
}

// NewBanner returns a site's banner with the defaults: enforced from the first view (site-wide
// blocking on, so every tag a built-in or configured rule matches is held until its category
// is allowed, even when pasted unmarked), an opt-in floating dialog whose first layer offers
// "Reject all" beside "Accept all" with buttons that look alike, remembered for a year. Sites
// created before this default keep their stored setting.
func NewBanner(id, siteID string, now time.Time) *Banner {
	return &Banner{
		ID: id, SiteID: siteID,
		Template: "floating", Position: "bottom_right",
		Colors: map[string]string{
			"primary": "#1a56db", "background": "#ffffff", "text": "#111827",
			"acceptButton": "#1a56db", "rejectButton": "#1a56db",
		},
		TextOverrides:        map[string]string{},
		TextTranslations:     map[string]map[string]string{},
		RegionRules:          []RegionRule{},
		TCF:                  tcfpkg.TCFSettings{}.Clean(),
		GPP:                  gpppkg.GPPSettings{}.Clean(),
		DefaultBehavior:      BehaviorOptIn,
		CloseButtonBehavior:  "dismiss",
		CookieExpirationDays: DefaultCookieLifetime,
		ConsentVersion:       1,
		SiteWideBlocking:     true,
		ConsentMode:          ConsentModeBasic,
		ReopenButton:         true,
		ReopenPosition:       "bottom_left",
		CreatedAt:            now, UpdatedAt: now,
	}
}

// Banner returns the site's banner with its blocking rules.
func (banners *Banners) Banner(ctx context.Context, orgID, siteID string) (*Banner, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := banners.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return bannerWithRules(ctx, banners.Store, banners.Catalog, siteID)
}

// PatchBanner changes the fields of the banner that p sets.
func (banners *Banners) PatchBanner(ctx context.Context, orgID, siteID string, p BannerPatch) (*Banner, error) {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return nil, err
	}
	c, err := banners.check(ctx, orgID, siteID, p)
	if err != nil {
		return nil, err
	}
	defer banners.Views.Forget(siteID)
	var out *Banner
	err = banners.Store.InTx(ctx, func(tx Store) error {
		b, err := tx.Banner(ctx, siteID)
		if err != nil {
			return err
		}
		old := core.Snapshot(b)
		c.apply(b)
		b.UpdatedAt = banners.Clock.Now()
		if err := banners.Events.ChangedIn(ctx, tx, siteID, "banner", tx.UpdateBanner(ctx, b)); err != nil {
			return err
		}
		if err := banners.Audit.Record(ctx, tx, orgID, siteID, core.AuditBannerUpdate, b.ID, old, b); err != nil {
			return err
		}
		out, err = bannerWithRules(ctx, tx, banners.Catalog, siteID)
		return err
	})
	return out, err
}

// PreviewBanner returns the banner as PatchBanner would leave it after p, stored nothing: the
// same checks refuse the same drafts with the same errors, and the same code applies the
// change (the console's preview of a draft). Reading the banner is enough to preview it.
func (banners *Banners) PreviewBanner(ctx context.Context, orgID, siteID string, p BannerPatch) (*Banner, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	c, err := banners.check(ctx, orgID, siteID, p)
	if err != nil {
		return nil, err
	}
	b, err := bannerWithRules(ctx, banners.Store, banners.Catalog, siteID)
	if err != nil {
		return nil, err
	}
	c.apply(b)
	return b, nil
}

// checkedPatch is a BannerPatch that passed every check, with what the checks resolved: the
// regional rules with their defaults, the TCF and GPP settings as stored, the cookie domain
// as the site allows it.
type checkedPatch struct {
	BannerPatch
	rules []RegionRule
	tcf   tcfpkg.TCFSettings
	gpp   gpppkg.GPPSettings
}

// check validates p for the site, as a PATCH of its banner.
func (banners *Banners) check(ctx context.Context, orgID, siteID string, p BannerPatch) (*checkedPatch, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	c := &checkedPatch{BannerPatch: p}
	if p.RegionRules != nil {
		var err error
		if c.rules, err = RegionRulesOf(*p.RegionRules); err != nil {
			return nil, err
		}
	}
	site, err := banners.Store.Site(ctx, orgID, siteID)
	if err != nil {
		return nil, err
	}
	if p.TCF != nil {
		gvl, err := banners.TCF.GVL(ctx)
		if err != nil {
			return nil, err
		}
		ac, err := banners.TCF.ACProviders(ctx)
		if err != nil {
			return nil, err
		}
		if c.tcf, err = tcfpkg.CheckTCFSettings(*p.TCF, gvl, ac, banners.TCF.Deployment); err != nil {
			return nil, err
		}
	}
	if p.GPP != nil {
		if c.gpp, err = gpppkg.CheckGPPSettings(*p.GPP); err != nil {
			return nil, err
		}
	}
	if d := &c.CookieDomain; d.Set && !d.Null {
		if d.Value, err = CookieDomainFor(site.URL, d.Value); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// apply makes the checked change to b.
func (c *checkedPatch) apply(b *Banner) {
	c.BannerPatch.apply(b)
	if c.RegionRules != nil {
		b.RegionRules = c.rules
	}
	if c.TCF != nil {
		b.TCF = c.tcf
	}
	if c.GPP != nil {
		b.GPP = c.gpp
	}
}

// SetScriptBlocking turns site-wide script blocking on or off. A change of state raises the
// consent version so that visitors are asked again; setting the current state changes nothing.
func (banners *Banners) SetScriptBlocking(ctx context.Context, orgID, siteID string, enabled bool) error {
	if err := core.Authorize(ctx, core.PermConfigure, orgID, siteID); err != nil {
		return err
	}
	if _, err := banners.Store.Site(ctx, orgID, siteID); err != nil {
		return err
	}
	defer banners.Views.Forget(siteID)
	return banners.Store.InTx(ctx, func(tx Store) error {
		b, err := tx.Banner(ctx, siteID)
		if err != nil || b.SiteWideBlocking == enabled {
			return err
		}
		old := core.Snapshot(b)
		b.SiteWideBlocking = enabled
		b.ConsentVersion++
		b.UpdatedAt = banners.Clock.Now()
		if err := tx.UpdateBanner(ctx, b); err != nil {
			return err
		}
		// Site-wide blocking is in blockingRules, derived on read: the entry names it there.
		changes, err := core.DiffFields(old, b)
		if err != nil {
			return err
		}
		changes = append(changes, core.Change{Field: "blockingRules", Old: core.Snapshot(map[string]bool{"siteWide": !enabled}),
			New: core.Snapshot(map[string]bool{"siteWide": enabled})})
		return banners.Events.ChangedIn(ctx, tx, siteID, "blocking", banners.Audit.RecordChanges(ctx, tx, orgID, siteID, core.AuditScriptBlocking, b.ID, changes))
	})
}

func bannerWithRules(ctx context.Context, st Store, catalog core.Catalog, siteID string) (*Banner, error) {
	b, err := st.Banner(ctx, siteID)
	if err != nil {
		return nil, err
	}
	cats, err := st.Categories(ctx, siteID)
	if err != nil {
		return nil, err
	}
	svcs, err := st.Services(ctx, siteID)
	if err != nil {
		return nil, err
	}
	b.BlockingRules = BlockingRulesOf(catalog, b, cats, svcs)
	return b, nil
}

// blockingRules derives a site's rules: one per service that had a rule added on import or
// configure, plus the catalog's built-in rules, each held back until its category is allowed.
// Services in a required category are never held back.
func BlockingRulesOf(catalog core.Catalog, b *Banner, cats []*Category, svcs []*Service) *BlockingRules {
	byID := make(map[string]*Category, len(cats))
	for _, c := range cats {
		byID[c.ID] = c
	}
	onSite := make(map[string]*Service, len(svcs))
	rules := []BlockingRule{}
	for _, s := range svcs {
		onSite[s.Slug] = s
		c := byID[s.CategoryID]
		if c == nil || c.IsRequired || len(s.BlockingPatterns) == 0 {
			continue
		}
		rules = append(rules, BlockingRule{ServiceSlug: s.Slug, CategorySlug: c.Slug, Patterns: s.BlockingPatterns})
	}
	for _, lib := range catalog.Services() {
		if !lib.BuiltinBlocking || len(lib.Scripts) == 0 {
			continue
		}
		catSlug := lib.Category
		if s := onSite[lib.Slug]; s != nil {
			if len(s.BlockingPatterns) > 0 {
				continue
			}
			c := byID[s.CategoryID]
			if c == nil || c.IsRequired {
				continue
			}
			catSlug = c.Slug
		}
		if catSlug == library.CategoryEssential {
			continue
		}
		rules = append(rules, BlockingRule{ServiceSlug: lib.Slug, CategorySlug: catSlug, Patterns: lib.Scripts})
	}
	return &BlockingRules{SiteWide: b.SiteWideBlocking, Rules: rules}
}

// Banners are the use cases of a site's banner and its script blocking.
type Banners struct {
	Store   Store
	Catalog core.Catalog
	Clock   core.Clock
	Audit   core.Auditor
	Events  *event.Publisher
	Views   *PublicViews
	TCF     tcfpkg.Ports
}
