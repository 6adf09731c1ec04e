package consent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"maps"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/event"
	gpppkg "github.com/consentd/consentd/core/gpp"
	tcfpkg "github.com/consentd/consentd/core/tcf"
)

var runtimeVersionPattern = regexp.MustCompile(core.RuntimeVersionPattern)

// snapshotContent is the document a snapshot hashes: the banner as the runtime showed it, its
// texts resolved for the language, the categories and services listed, and the runtime's
// version. Fields are in a fixed order and maps marshal with sorted keys, so one configuration
// always gives the same bytes.
type snapshotContent struct {
	Format         string            `json:"format"`
	RuntimeVersion string            `json:"runtimeVersion"`
	Language       string            `json:"language"`
	ConsentVersion int               `json:"consentVersion"`
	Template       string            `json:"template"`
	Position       string            `json:"position"`
	Colors         map[string]string `json:"colors"`
	Texts          map[string]string `json:"texts"`
	LogoURL        *string           `json:"logoUrl"`
	PrivacyURL     *string           `json:"privacyPolicyUrl"`
	CookiePolicy   *string           `json:"cookiePolicyUrl"`
	Default        string            `json:"defaultBehavior"`
	Close          string            `json:"closeButtonBehavior"`
	Categories     []snapshotCat     `json:"categories"`
	// RegionRules are the banner's regional rules, which a record's regionRule names; left
	// out when there are none, so that a site without them keeps its snapshots' hashes.
	RegionRules []banner.RegionRule `json:"regionRules,omitempty"`
	// TCF is the site's TCF settings when TCF is on (the vendors, special features,
	// restrictions and Additional Consent providers shown); left out otherwise, so that a
	// site without TCF keeps its snapshots' hashes. The GVL version is the record's.
	TCF *tcfpkg.TCFSettings `json:"tcf,omitempty"`
	// GPP is the site's GPP settings when GPP is on (the MSPA fields the strings carry); left
	// out otherwise, so that a site without GPP keeps its snapshots' hashes.
	GPP *gpppkg.GPPSettings `json:"gpp,omitempty"`
}

type snapshotCat struct {
	Slug        string        `json:"slug"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Required    bool          `json:"isRequired"`
	Services    []snapshotSvc `json:"services"`
}

type snapshotSvc struct {
	Slug        string           `json:"slug"`
	Label       string           `json:"label"`
	Description string           `json:"description"`
	Cookies     []snapshotCookie `json:"cookies"`
}

type snapshotCookie struct {
	Name        string `json:"name"`
	Duration    string `json:"duration"`
	Description string `json:"description"`
}

// buildSnapshot renders what the runtime shows for cfg in lang: the built-in texts of lang
// under the site's own, and the categories' names as the runtime picks them.
func buildSnapshot(cfg *banner.PublicConfig, lang, runtime string) ([]byte, error) {
	b := cfg.Banner
	texts := banner.RuntimeTexts(lang)
	maps.Copy(texts, (&banner.SiteView{Banner: b}).SiteTexts(lang))
	c := snapshotContent{
		Format: "consentd-snapshot-v1", RuntimeVersion: runtime, Language: lang, ConsentVersion: b.ConsentVersion,
		Template: b.Template, Position: b.Position, Colors: b.Colors, Texts: texts, LogoURL: b.LogoURL,
		PrivacyURL: b.PrivacyPolicyURL, CookiePolicy: b.CookiePolicyURL, Default: b.DefaultBehavior,
		Close: b.CloseButtonBehavior, Categories: []snapshotCat{}, RegionRules: b.RegionRules,
	}
	if b.TCF.Enabled {
		tcf := b.TCF.Clone()
		c.TCF = &tcf
	}
	if b.GPP.Enabled {
		gpp := b.GPP.Clone()
		c.GPP = &gpp
	}
	for _, pc := range cfg.Categories {
		name, desc := banner.CategoryText(pc.Category, lang)
		sc := snapshotCat{Slug: pc.Slug, Name: name, Description: desc, Required: pc.IsRequired, Services: []snapshotSvc{}}
		for _, s := range pc.Services {
			ss := snapshotSvc{Slug: s.Slug, Label: banner.Translated(s.LabelTranslations, lang, s.Label),
				Description: banner.Translated(s.DescriptionTranslations, lang, s.Description), Cookies: []snapshotCookie{}}
			for _, ck := range s.Cookies {
				ss.Cookies = append(ss.Cookies, snapshotCookie{Name: ck.Name, Duration: ck.Duration,
					Description: banner.Translated(ck.DescriptionTranslations, lang, ck.Description)})
			}
			sc.Services = append(sc.Services, ss)
		}
		c.Categories = append(c.Categories, sc)
	}
	return json.Marshal(c)
}

// keySet is a set of strings safe for concurrent use, bounded by starting afresh.
type keySet struct {
	mu   sync.Mutex
	keys map[string]bool
}

func (k *keySet) has(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys[key]
}

func (k *keySet) add(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil || len(k.keys) >= banner.PublicCacheMax {
		k.keys = map[string]bool{}
	}
	k.keys[key] = true
}

// ConsentSnapshot returns a snapshot of a site by its hash.
func (consentLog *ConsentLog) ConsentSnapshot(ctx context.Context, orgID, siteID, hash string) (*banner.ConsentSnapshot, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := consentLog.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	if len(hash) != core.HashHexLength || strings.Trim(hash, "0123456789abcdef") != "" {
		return nil, core.Errorf(core.CodeNotFound, "snapshot not found")
	}
	return consentLog.Store.ConsentSnapshot(ctx, siteID, hash)
}

// EncodeConsentCursor returns the opaque listing cursor that resumes after r.
func EncodeConsentCursor(r *ConsentRecord) string {
	return base64.RawURLEncoding.EncodeToString([]byte(r.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + r.ID))
}

// DecodeConsentCursor reads a cursor made by EncodeConsentCursor; anything else is a
// validation error.
func DecodeConsentCursor(c string) (*ConsentKey, error) {
	bad := core.FieldErrorf("cursor", "not a cursor of this listing")
	if len(c) > MaxConsentCursor {
		return nil, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, bad
	}
	ts, id, ok := strings.Cut(string(raw), "|")
	if !ok || id == "" || core.CheckText("cursor", id) != nil {
		return nil, bad
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || core.CheckTime("cursor", t) != nil {
		return nil, bad
	}
	return &ConsentKey{CreatedAt: t.UTC(), ID: id}, nil
}

// VerifyConsentChain recomputes the chain of a site of the organization (see
// VerifyConsentChain the function).
func (consentLog *ConsentLog) VerifyConsentChain(ctx context.Context, orgID, siteID string) (*ChainReport, error) {
	if err := core.Authorize(ctx, core.PermVerify, orgID, siteID); err != nil {
		return nil, err
	}
	if _, err := consentLog.Store.Site(ctx, orgID, siteID); err != nil {
		return nil, err
	}
	return VerifyConsentChain(ctx, consentLog.Store, siteID)
}

// VerifyAnyConsentChain verifies a site's chain by the site's ID alone, for the operator's
// command line, which acts across organizations.
func (consentLog *ConsentLog) VerifyAnyConsentChain(ctx context.Context, siteID string) (*ChainReport, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, err
	}
	return VerifyConsentChain(ctx, consentLog.Store, siteID)
}

// EraseVisitor removes a visitor's ID from their records of the site (a visitor's erasure
// request). The decisions stay, with the visitor's hash, which without the removed salt
// links to no one; the chain still verifies. It returns how many records were changed.
func (consentLog *ConsentLog) EraseVisitor(ctx context.Context, orgID, siteID, visitorID string) (int, error) {
	if err := core.Authorize(ctx, core.PermVisitors, orgID, siteID); err != nil {
		return 0, err
	}
	if err := checkVisitorID(visitorID); err != nil {
		return 0, err
	}
	if _, err := consentLog.Store.Site(ctx, orgID, siteID); err != nil {
		return 0, err
	}
	var n int
	err := consentLog.Store.InTx(ctx, func(tx Store) error {
		var err error
		if n, err = tx.EraseConsentVisitor(ctx, siteID, visitorID); err != nil {
			return err
		}
		// The erased visitor's ID is not kept here either.
		return consentLog.Audit.Record(ctx, tx, orgID, siteID, core.AuditVisitorErase, "", nil, map[string]any{"records": n})
	})
	if err != nil {
		return 0, err
	}
	consentLog.Events.PublishNow(ctx, siteID, event.EventVisitorErased, VisitorErasure{SiteID: siteID, VisitorID: visitorID, Records: n})
	return n, nil
}

// ConsentLog are the use cases of consent records: listing and exporting them, their proof
// (snapshots, the hash chain, erasure), statistics and retention.
type ConsentLog struct {
	Store    Store
	AllSites core.SiteLister
	Clock    core.Clock
	Audit    core.Auditor
	Events   *event.Publisher
	// Stats are the statistics' aggregates (core/analytics counts the decisions as they are
	// stored, outside the records' transactions); nil: ConsentStats answers internal.
	Stats StatsSource
}

// StatsSource gives the statistics' aggregates of the stored decisions.
type StatsSource interface {
	// ConsentStatBuckets returns the site's aggregates per bucket of interval (StatsHour,
	// StatsDay or StatsWeek, see StatsBucketStart) for the buckets with from <= start < to,
	// in bucket order; buckets without decisions are left out. They count every record ever
	// stored, including those retention removed since.
	ConsentStatBuckets(ctx context.Context, siteID string, from, to time.Time, interval string) ([]ConsentBucketStat, error)
}

// VisitorErasure is the data of a visitor.erased event.
type VisitorErasure struct {
	SiteID    string `json:"siteId"`
	VisitorID string `json:"visitorId"`
	Records   int    `json:"records"`
}
