package consent

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/tcf"
)

// consentActions are the actions a record may have.
var consentActions = [...]string{"accept_all", "reject_all", "custom", "gpc"}

func checkVisitorID(v string) error {
	if n := len([]rune(v)); n < 1 || n > MaxVisitorID {
		return core.FieldErrorf("visitorId", "must be 1 to %d characters", MaxVisitorID)
	}
	return core.CheckText("visitorId", v)
}

// actionAgrees checks that a decision's action says what its categories say, so that no
// record contradicts itself (docs/consent-records.md, "Records that cannot contradict
// themselves"): reject_all with an optional category true, or accept_all with one false or
// left out, is a validation error rather than a record rewritten from a guess. The one
// exception is a category a Global Privacy Control signal turns off (Policy.GPC), which
// accept_all may send false when the request carries the signal (the runtime locks it off then).
func actionAgrees(in ConsentInput, cats []*banner.Category, ps banner.Policies) error {
	if in.Action == nil {
		return nil
	}
	switch *in.Action {
	case "reject_all":
		for _, c := range cats {
			if !c.IsRequired && in.Categories[c.Slug] {
				return core.FieldErrorf("categories."+c.Slug, "must be false with action reject_all")
			}
		}
	case "accept_all":
		for _, c := range cats {
			if c.IsRequired || in.Categories[c.Slug] || (in.GPC && ps.GPCMayTurnOff(c.Slug)) {
				continue
			}
			return core.FieldErrorf("categories."+c.Slug, "must be true with action accept_all")
		}
	}
	return nil
}

// RecordConsent stores a visitor's decision for the site named by projectKey. Every category
// of the site is stored with an explicit boolean, as the visitor's Policy applies the decision:
// required ones always true, unmentioned ones false, those a GPC signal turns off false when
// the request carries one, which may also store doNotSell.
func (public *PublicBanner) RecordConsent(ctx context.Context, projectKey string, in ConsentInput) (*ConsentRecord, error) {
	view, err := public.Views.ConsentSite(ctx, projectKey, public.Clock())
	if err != nil {
		return nil, err
	}
	site, cats := view.Site, view.Cats
	// What the banner decides for the visitor: the rule of their place, its policy and what
	// their choice grants under it.
	loc := core.LocationOf(in.Country, in.Region)
	in.Country, in.Region = loc.Country, loc.Region
	rule := view.Banner.VisitorRuleIndexed(view.Regions, loc)
	jur, ruleRef := rule.Jurisdiction, rule.Ref()
	pol := view.Policies.For(rule)
	decided := pol.Apply(in.Categories, in.GPC)
	// Then the checks, in the order clients see their answers (the runtime reads which field is
	// refused first): the version, the action, the visitor, the categories, the page, the TCF
	// and GPP strings; then the snapshot of what the visitor was shown.
	if in.ConsentVersion < 1 || in.ConsentVersion > core.MaxConsentVersion {
		return nil, core.FieldErrorf("consentVersion", "must be 1 to %d", core.MaxConsentVersion)
	}
	// A decision cannot answer a banner the site has not shown yet.
	if in.ConsentVersion > view.Version {
		if view.Version == 1 {
			return nil, core.FieldErrorf("consentVersion", "must be 1, the site's current version: the banner has not been changed since it was first shown")
		}
		return nil, core.FieldErrorf("consentVersion", "must be from 1 to %d, the site's current version", view.Version)
	}
	if in.Action != nil && !slices.Contains(consentActions[:], *in.Action) {
		return nil, core.FieldErrorf("action", "must be one of %v", consentActions)
	}
	if err := actionAgrees(in, cats, view.Policies); err != nil {
		return nil, err
	}
	if in.IdempotencyKey != "" && !idempotencyKeyPattern.MatchString(in.IdempotencyKey) {
		return nil, core.FieldErrorf("key", "must be %d to %d letters, digits, '-' or '_'", MinIdempotencyKey, MaxIdempotencyKey)
	}
	visitor := public.NewID()
	if in.VisitorID != nil {
		if err := checkVisitorID(*in.VisitorID); err != nil {
			return nil, err
		}
		visitor = *in.VisitorID
	}
	allOn, allOff := true, true
	for _, c := range cats {
		if !c.IsRequired {
			allOn, allOff = allOn && decided[c.Slug], allOff && !decided[c.Slug]
		}
	}
	for slug := range in.Categories {
		if _, known := decided[slug]; !known {
			return nil, core.FieldErrorf("categories."+slug, "unknown category")
		}
	}
	page, err := PageURL(in.PageURL)
	if err != nil {
		return nil, err
	}
	if in.GVLVersion, err = public.checkTCFInput(ctx, view.Banner, in); err != nil {
		return nil, err
	}
	if err := banner.CheckGPPString(view.Banner, in.GPPString); err != nil {
		return nil, err
	}
	if !experiment.ValidVariantID(in.Variant) {
		return nil, core.FieldErrorf("variant", "must be an experiment's variant ID (%s) or absent", experiment.VariantIDPattern)
	}
	snap, err := public.snapshotFor(ctx, projectKey, in.Language, in.RuntimeVersion)
	if err != nil {
		return nil, err
	}
	r := &ConsentRecord{
		ID: public.NewID(), SiteID: site.ID, VisitorID: visitor, IPCountry: in.Country, Jurisdiction: jur,
		Region: loc.Region, RegionRule: ruleRef,
		CategoriesConsented: decided, GPCSignal: in.GPC, DoNotSell: in.DoNotSell || (in.GPC && pol.GPC.Honored && pol.GPC.DoNotSell),
		ConsentVersion: in.ConsentVersion, CreatedAt: public.Clock.Now(),
		PageURL: page, UserAgent: UserAgentFamily(in.UserAgent), SnapshotHash: snap.Hash,
		TCString: in.TCString, ACString: in.ACString, GVLVersion: in.GVLVersion, GPPString: in.GPPString,
		Variant: in.Variant, IdempotencyKey: in.IdempotencyKey,
	}
	switch {
	case in.Action != nil:
		r.Action = *in.Action
	case allOn:
		r.Action = "accept_all"
	case allOff:
		r.Action = "reject_all"
	default:
		r.Action = "custom"
	}
	SealConsentRecord(r)
	if in.VerifierToken != "" && public.Verifiers != nil && public.Verifiers.Valid(ctx, in.VerifierToken, projectKey) {
		// A verification's decision: answered as a visitor's, kept out of the log, its chain,
		// the statistics, the exports and the webhooks (core/verifier).
		return r, nil
	}
	err = public.Store.CreateConsentRecord(ctx, r)
	if core.IsConflict(err) && r.IdempotencyKey != "" {
		// The decision was stored before (a retry whose first answer never arrived): its
		// record answers, and nothing new is stored.
		return public.Store.ConsentRecordByKey(ctx, site.ID, r.IdempotencyKey)
	}
	if err != nil {
		return nil, err
	}
	if public.Decisions != nil {
		public.Decisions.CountDecision(r, in)
	}
	return r, nil
}

var idempotencyKeyPattern = regexp.MustCompile(IdempotencyKeyPattern)

// PageURL keeps the origin and path of the page a decision was made on: the query and the
// fragment often carry identifiers (session tokens, e-mail addresses) and are dropped, as are
// user information and default ports. "" stays "". Anything but an absolute http(s) URL of at
// most MaxURL characters is a validation error.
func PageURL(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	if err := core.CheckText("pageUrl", raw); err != nil {
		return "", err
	}
	if utf8.RuneCountInString(raw) > core.MaxURL {
		return "", core.FieldErrorf("pageUrl", "must be at most %d characters", core.MaxURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", core.FieldErrorf("pageUrl", "must be an absolute http(s) URL")
	}
	host := strings.ToLower(u.Host) // without user information
	if u.Scheme == "http" {
		host = strings.TrimSuffix(host, ":80")
	} else {
		host = strings.TrimSuffix(host, ":443")
	}
	out := (&url.URL{Scheme: u.Scheme, Host: host, Path: u.Path, RawPath: u.RawPath}).String()
	if out == u.Scheme+"://"+host {
		out += "/"
	}
	if utf8.RuneCountInString(out) > core.MaxURL {
		return "", core.FieldErrorf("pageUrl", "must be at most %d characters", core.MaxURL)
	}
	return out, nil
}

// UserAgentFamily reduces a User-Agent header to a browser family and a device class
// ("Chrome desktop", "Safari mobile", "other desktop"): coarse enough to identify no one,
// enough to see that a decision came from a browser like the visitor's.
func UserAgentFamily(ua string) string {
	device := "desktop"
	if strings.Contains(ua, "Mobi") || strings.Contains(ua, "Android") || strings.Contains(ua, "iPhone") || strings.Contains(ua, "iPad") {
		device = "mobile"
	}
	family := "other"
	switch {
	case ua == "":
		return ""
	case strings.Contains(ua, "Edg/") || strings.Contains(ua, "EdgA/") || strings.Contains(ua, "EdgiOS/"):
		family = "Edge"
	case strings.Contains(ua, "OPR/") || strings.Contains(ua, "Opera"):
		family = "Opera"
	case strings.Contains(ua, "Firefox/") || strings.Contains(ua, "FxiOS/"):
		family = "Firefox"
	case strings.Contains(ua, "SamsungBrowser/"):
		family = "Samsung Internet"
	case strings.Contains(ua, "Chrome/") || strings.Contains(ua, "CriOS/") || strings.Contains(ua, "Chromium/"):
		family = "Chrome"
	case strings.Contains(ua, "Safari/") && strings.Contains(ua, "Version/"):
		family = "Safari"
	}
	return family + " " + device
}

// snapshotFor returns the snapshot of what the runtime showed for the site named by
// projectKey in lang, stored once per content and cached like the public configuration.
func (public *PublicBanner) snapshotFor(ctx context.Context, projectKey, lang, runtime string) (*banner.ConsentSnapshot, error) {
	if utf8.RuneCountInString(lang) > banner.MaxLanguageKey {
		return nil, core.FieldErrorf("language", "must be at most %d characters", banner.MaxLanguageKey)
	}
	if err := core.CheckText("language", lang); err != nil {
		return nil, err
	}
	if runtime != "" && (len(runtime) > MaxRuntimeVersion || !runtimeVersionPattern.MatchString(runtime)) {
		return nil, core.FieldErrorf("runtimeVersion", "must be 1 to %d letters, digits, '.', '+' or '-'", MaxRuntimeVersion)
	}
	key := projectKey + "\x00" + lang + "\x00" + runtime
	return public.Views.SnapshotCache.Load(ctx, key, public.Clock(), func(ctx context.Context) (*banner.ConsentSnapshot, string, error) {
		cfg, err := public.PublicConfig(ctx, projectKey, core.Location{})
		if err != nil {
			return nil, "", err
		}
		content, err := buildSnapshot(cfg, lang, runtime)
		if err != nil {
			return nil, "", core.Wrap(core.CodeInternal, err, "snapshot")
		}
		s := &banner.ConsentSnapshot{SiteID: cfg.Banner.SiteID, Hash: core.Sha256Hex(string(content)), Content: content, CreatedAt: public.Clock.Now()}
		// Snapshots are never removed while their site exists: one this process stored
		// need not be stored again when the cache entry is renewed with the same content.
		if !public.savedSnapshots.has(s.SiteID + "\x00" + s.Hash) {
			if err := public.Store.SaveConsentSnapshot(ctx, s); err != nil {
				return nil, "", err
			}
			public.savedSnapshots.add(s.SiteID + "\x00" + s.Hash)
		}
		return s, s.SiteID, nil
	})
}

// checkTCFInput checks the TCF fields of a decision on the site with banner b and returns the
// GVL version to record: a TC string is decoded (a malformed one is refused), must carry this
// deployment's CMP ID, be service-specific, have a disclosed-vendors segment, and name a GVL
// version this server has (and gvlVersion when the runtime sent one); an AC string must be
// Google's v2 format and name only the site's providers; both only on a site with TCF on.
func (public *PublicBanner) checkTCFInput(ctx context.Context, b *banner.Banner, in ConsentInput) (int, error) {
	if in.TCString == "" && in.ACString == "" {
		if in.GVLVersion != 0 {
			return 0, core.FieldErrorf("gvlVersion", "only with a tcString")
		}
		return 0, nil
	}
	if !b.TCF.Enabled {
		field := "tcString"
		if in.TCString == "" {
			field = "acString"
		}
		return 0, core.FieldErrorf(field, "TCF is not enabled on this site")
	}
	if len(in.ACString) > core.MaxACString {
		return 0, core.FieldErrorf("acString", "must be at most %d characters", core.MaxACString)
	}
	if in.ACString != "" {
		m := tcf.AcStringPattern.FindStringSubmatch(in.ACString)
		if m == nil {
			return 0, core.FieldErrorf("acString", "not an Additional Consent string v2 (2~1.35.41~dv.9.21)")
		}
		for _, list := range []string{m[1], m[3]} {
			for _, id := range strings.Split(list, ".") {
				if n, err := strconv.Atoi(id); id != "" && (err != nil || !slices.Contains(b.TCF.GoogleATPIDs, n)) {
					return 0, core.FieldErrorf("acString", "provider %s is not one of the site's (tcf.googleAtpIds)", id)
				}
			}
		}
	}
	if in.TCString == "" {
		if in.GVLVersion != 0 {
			return 0, core.FieldErrorf("gvlVersion", "only with a tcString")
		}
		return 0, nil
	}
	if len(in.TCString) > core.MaxTCString {
		return 0, core.FieldErrorf("tcString", "must be at most %d characters", core.MaxTCString)
	}
	if !tcf.TcStringPattern.MatchString(in.TCString) {
		return 0, core.FieldErrorf("tcString", "not a TC string (segments of web-safe base64 separated by '.')")
	}
	tc, err := public.TCF.Decode(in.TCString)
	if err != nil {
		return 0, err
	}
	switch cmp := public.TCF.Deployment.CMPID; {
	case tc.CMPID != cmp:
		return 0, core.FieldErrorf("tcString", "made by CMP %d, not by this deployment's (%d)", tc.CMPID, cmp)
	case !tc.IsServiceSpecific:
		return 0, core.FieldErrorf("tcString", "not service-specific (TCF 2.3 strings are)")
	case tc.VendorsDisclosed == nil:
		return 0, core.FieldErrorf("tcString", "has no disclosed-vendors segment, which TCF 2.3 requires")
	case in.GVLVersion != 0 && in.GVLVersion != tc.VendorListVersion:
		return 0, core.FieldErrorf("gvlVersion", "%d, but the tcString says vendorListVersion %d", in.GVLVersion, tc.VendorListVersion)
	}
	if _, err := public.TCF.Lists.GVL(ctx, tc.VendorListVersion); core.IsNotFound(err) {
		return 0, core.FieldErrorf("tcString", "vendorListVersion %d is not a Global Vendor List this server has served", tc.VendorListVersion)
	} else if err != nil {
		return 0, err
	}
	return tc.VendorListVersion, nil
}
