package analytics

import (
	"context"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
)

// Sites finds an organization's site (not_found for another organization's).
type Sites interface {
	Site(ctx context.Context, orgID, id string) (*core.Site, error)
}

// Verifiers tell a verifier's credential (core/verifier): a verification's page views are no
// visitors'.
type Verifiers interface {
	Valid(ctx context.Context, token, projectKey string) bool
}

// Analytics are the analytics' use cases: the runtime's events in, the consent path's
// decisions in, the reports out.
type Analytics struct {
	Agg       *Aggregator
	Sites     Sites
	Views     *banner.PublicViews
	Verifiers Verifiers
	Clock     core.Clock
}

// Event is one interaction event of a batch.
type Event struct {
	Type string
	// Decision is the decision of an EventDecision (Decisions).
	Decision string
	// MS is the time from the banner shown to the decision (EventDecision only), nil unknown.
	MS *int64
}

// EventsInput is a batch of events the runtime sent for one page view.
type EventsInput struct {
	// ConsentVersion is the banner version shown; Language the language of its texts ("" for
	// the site's default); Variant the experiment variant shown ("" for none).
	ConsentVersion int
	Language       string
	Variant        string
	Events         []Event
	// Country, Region and UserAgent come from the request, never from the body.
	Country, Region, UserAgent string
	// VerifierToken is a verifier's credential the request carried: such batches are dropped.
	VerifierToken string
}

// RecordEvents counts a batch of the runtime's events for the site named by projectKey. It
// stores nothing per event and nothing that identifies the visitor: each event adds one to a
// counter of its hour, place, device class, language, banner version and variant. Events of
// bots and of verifications are checked and dropped. Errors: not_found for an unknown
// project key, validation_error for a malformed batch.
func (a *Analytics) RecordEvents(ctx context.Context, projectKey string, in EventsInput) error {
	// The body first, then the site: a malformed batch is named as such whatever its key.
	if err := checkDims(in.Language, in.Variant); err != nil {
		return err
	}
	var c Counts
	for i, e := range in.Events {
		if err := countEvent(&c, e); err != nil {
			return core.FieldErrorf("events["+strconv.Itoa(i)+"]."+err.field, "%s", err.msg)
		}
	}
	if len(in.Events) < 1 || len(in.Events) > MaxEvents {
		return core.FieldErrorf("events", "must hold 1 to %d events", MaxEvents)
	}
	now := a.Clock.Now()
	view, err := a.Views.ConsentSite(ctx, projectKey, now)
	if err != nil {
		return err
	}
	if in.ConsentVersion < 1 || in.ConsentVersion > view.Version {
		return core.FieldErrorf("consentVersion", "must be from 1 to %d, the site's current version", view.Version)
	}
	device := DeviceClass(in.UserAgent)
	if device == DeviceBot || (in.VerifierToken != "" && a.Verifiers != nil && a.Verifiers.Valid(ctx, in.VerifierToken, projectKey)) {
		return nil
	}
	loc := core.LocationOf(in.Country, in.Region)
	rule := view.Banner.VisitorRuleIndexed(view.Regions, loc)
	a.Agg.Add(Key{SiteID: view.Site.ID, Hour: now.Truncate(hour), Country: loc.Country, RegionRule: rule.Ref(), Device: device,
		Language: in.Language, BannerVersion: in.ConsentVersion, Variant: in.Variant}, &c)
	return nil
}

type eventError struct{ field, msg string }

func countEvent(c *Counts, e Event) *eventError {
	if e.Type != EventDecision && (e.Decision != "" || e.MS != nil) {
		return &eventError{"decision", "only a decision event has a decision and a time"}
	}
	switch e.Type {
	case EventShown:
		c.Shown++
	case EventPreferencesOpened:
		c.PreferencesOpened++
	case EventLeft:
		c.Left++
	case EventDecision:
		switch e.Decision {
		case DecisionAcceptAll:
			c.FirstAcceptAll++
		case DecisionRejectAll:
			c.FirstRejectAll++
		case DecisionCustom:
			c.FirstCustom++
		case DecisionDoNotSell:
			c.FirstDoNotSell++
		case DecisionGPC:
			c.FirstGPC++
		default:
			return &eventError{"decision", "must be one of " + strings.Join(Decisions(), ", ")}
		}
		if e.MS != nil {
			if *e.MS < 0 || *e.MS > MaxDecisionMS {
				return &eventError{"ms", "must be 0 to " + strconv.Itoa(MaxDecisionMS)}
			}
			c.DecisionMS += *e.MS
			c.Timed++
		}
	default:
		return &eventError{"type", "must be one of " + strings.Join(EventTypes(), ", ")}
	}
	return nil
}

func checkDims(lang, variant string) error {
	if lang != "" && !banner.ValidLanguage(lang) {
		return core.FieldErrorf("language", "%q is not a language code such as de, fr or pt-BR", lang)
	}
	if !ValidVariant(variant) {
		return core.FieldErrorf("variant", "must be at most %d letters, digits, '-' or '_'", MaxVariant)
	}
	return nil
}

// CountDecision counts a stored consent record (core/consent calls it once the record is
// committed, never for a verification's or a repeated post): the decided counters, by action,
// jurisdiction and category, under the record's hour and place and the request's device
// class, language and variant. Bots' records are counted under DeviceBot, so that the
// statistics match the records.
func (a *Analytics) CountDecision(r *consent.ConsentRecord, in consent.ConsentInput) {
	c := Counts{Decided: 1, Categories: make(map[string]Tally, len(r.CategoriesConsented))}
	switch r.Action {
	case "accept_all":
		c.AcceptAll = 1
	case "reject_all":
		c.RejectAll = 1
	case "custom":
		c.Custom = 1
	case "gpc":
		c.GPC = 1
	}
	switch r.Jurisdiction {
	case core.JurisdictionGDPR:
		c.GDPR = 1
	case core.JurisdictionCCPA:
		c.CCPA = 1
	default:
		c.JurisdictionNone = 1
	}
	if r.GPCSignal {
		c.GPCSignal = 1
	}
	if r.DoNotSell {
		c.DoNotSell = 1
	}
	for slug, v := range r.CategoriesConsented {
		t := Tally{Decisions: 1}
		if v {
			t.Granted = 1
		}
		c.Categories[slug] = t
	}
	lang := in.Language
	if lang != "" && !banner.ValidLanguage(lang) {
		lang = ""
	}
	a.Agg.Add(Key{SiteID: r.SiteID, Hour: r.CreatedAt.UTC().Truncate(hour), Country: r.IPCountry, RegionRule: r.RegionRule,
		Device: DeviceClass(in.UserAgent), Language: lang, BannerVersion: r.ConsentVersion, Variant: r.Variant}, &c)
}
