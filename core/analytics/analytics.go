package analytics

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event types the banner runtime sends (EventTypes).
const (
	// EventShown: the banner's first layer was shown.
	EventShown = "shown"
	// EventDecision: the visitor's first decision on this page view (Decision says which),
	// with the time it took (MS) from the banner being shown.
	EventDecision = "decision"
	// EventPreferencesOpened: the visitor opened the preferences layer.
	EventPreferencesOpened = "preferences_opened"
	// EventLeft: the visitor left the page with the banner shown and no decision made.
	EventLeft = "left"
)

// EventTypes returns the event types.
func EventTypes() []string {
	return []string{EventShown, EventDecision, EventPreferencesOpened, EventLeft}
}

// Decisions a decision event names (Decisions).
const (
	DecisionAcceptAll = "accept_all"
	DecisionRejectAll = "reject_all"
	// DecisionCustom is a saved choice from the preferences layer.
	DecisionCustom = "custom"
	// DecisionDoNotSell is the "Do Not Sell or Share" link's opt-out.
	DecisionDoNotSell = "do_not_sell"
	// DecisionGPC is a Global Privacy Control signal applied without a click.
	DecisionGPC = "gpc"
)

// Decisions returns the decisions a decision event may name.
func Decisions() []string {
	return []string{DecisionAcceptAll, DecisionRejectAll, DecisionCustom, DecisionDoNotSell, DecisionGPC}
}

// Device classes (Devices), derived on the server from the User-Agent header (DeviceClass).
const (
	DeviceMobile  = "mobile"
	DeviceTablet  = "tablet"
	DeviceDesktop = "desktop"
	// DeviceBot is a crawler: its events are dropped; its consent records (which the
	// statistics count) are kept apart and left out of the analytics' reports.
	DeviceBot = "bot"
)

// Devices returns the device classes.
func Devices() []string { return []string{DeviceMobile, DeviceTablet, DeviceDesktop, DeviceBot} }

// Limits of an event batch.
const (
	// MaxEvents is the most events one batch may carry.
	MaxEvents = 32
	// MaxDecisionMS bounds a time to decision (a day): anything longer is an error of the
	// client, not a visitor's hesitation.
	MaxDecisionMS = 24 * 60 * 60 * 1000
	// MaxVariant bounds an experiment variant's ID.
	MaxVariant = 64
	// MaxEventsBody bounds an event batch's body, as the consent post's.
	MaxEventsBody = 16 << 10
)

// CountryPattern is the shape of a country filter: an ISO 3166-1 alpha-2 code.
const CountryPattern = `^[A-Z]{2}$`

// VariantPattern is the shape of an experiment variant's ID ("" for none).
const VariantPattern = `^[A-Za-z0-9_-]{0,64}$`

var variantPattern = regexp.MustCompile(VariantPattern)

// ValidVariant reports whether v is a variant ID ("" included).
func ValidVariant(v string) bool { return variantPattern.MatchString(v) }

// botMarks are what crawlers put in their User-Agent; HeadlessChrome is not one of them
// (automated tests and some real browsers' embeddings use it).
var botMarks = [...]string{"bot", "crawl", "spider", "slurp", "facebookexternalhit", "lighthouse", "pingdom", "headlesshttp", "curl/", "wget/", "python-requests", "go-http-client"}

// DeviceClass reduces a User-Agent header to a device class: bot for crawlers and for an
// empty header, tablet for iPads and Android devices without "Mobile", mobile for phones,
// desktop otherwise. Coarse on purpose: it identifies no one.
func DeviceClass(ua string) string {
	l := strings.ToLower(ua)
	if l == "" {
		return DeviceBot
	}
	for _, m := range botMarks {
		if strings.Contains(l, m) {
			return DeviceBot
		}
	}
	switch {
	case strings.Contains(l, "ipad") || strings.Contains(l, "tablet") || (strings.Contains(l, "android") && !strings.Contains(l, "mobile")):
		return DeviceTablet
	case strings.Contains(l, "mobi") || strings.Contains(l, "iphone") || strings.Contains(l, "android"):
		return DeviceMobile
	}
	return DeviceDesktop
}

// Key is what the counters are kept per.
type Key struct {
	SiteID string
	// Hour is the UTC hour (truncated).
	Hour time.Time
	// Country is the visitor's ISO 3166-1 country ("" unknown); RegionRule the banner's
	// regional rule that applied (banner.VisitorRule.Ref: "regionRules[0]", "default", "").
	Country    string
	RegionRule string
	Device     string
	// Language is the language of the texts shown ("" for the site's defaults).
	Language string
	// BannerVersion is the banner's consentVersion shown.
	BannerVersion int
	// Variant is the experiment variant's ID, "" when none.
	Variant string
}

func (k Key) compare(o Key) int {
	if c := strings.Compare(k.SiteID, o.SiteID); c != 0 {
		return c
	}
	if c := k.Hour.Compare(o.Hour); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{k.Country, o.Country}, {k.RegionRule, o.RegionRule}, {k.Device, o.Device}, {k.Language, o.Language}, {k.Variant, o.Variant}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	return k.BannerVersion - o.BannerVersion
}

// Counts are the counters of one key. Those named First… and Shown, PreferencesOpened, Left,
// DecisionMS and Timed come from the runtime's events; Decided and the rest from the consent
// records as they are stored.
type Counts struct {
	Shown             int64
	PreferencesOpened int64
	Left              int64
	// First decisions, from events.
	FirstAcceptAll, FirstRejectAll, FirstCustom, FirstDoNotSell, FirstGPC int64
	// DecisionMS is the sum of the times to decision of the Timed decision events.
	DecisionMS int64
	Timed      int64
	// Consent records: how many, by action, by jurisdiction, with a GPC signal, with Do Not Sell.
	Decided                           int64
	AcceptAll, RejectAll, Custom, GPC int64
	GDPR, CCPA, JurisdictionNone      int64
	GPCSignal, DoNotSell              int64
	// Categories holds, per category slug, the records naming it and those granting it.
	Categories map[string]Tally
}

// Tally counts the decisions on one category.
type Tally struct {
	Decisions int64 `json:"decisions"`
	Granted   int64 `json:"granted"`
}

// Add adds o to c.
func (c *Counts) Add(o *Counts) {
	c.Shown += o.Shown
	c.PreferencesOpened += o.PreferencesOpened
	c.Left += o.Left
	c.FirstAcceptAll += o.FirstAcceptAll
	c.FirstRejectAll += o.FirstRejectAll
	c.FirstCustom += o.FirstCustom
	c.FirstDoNotSell += o.FirstDoNotSell
	c.FirstGPC += o.FirstGPC
	c.DecisionMS += o.DecisionMS
	c.Timed += o.Timed
	c.Decided += o.Decided
	c.AcceptAll += o.AcceptAll
	c.RejectAll += o.RejectAll
	c.Custom += o.Custom
	c.GPC += o.GPC
	c.GDPR += o.GDPR
	c.CCPA += o.CCPA
	c.JurisdictionNone += o.JurisdictionNone
	c.GPCSignal += o.GPCSignal
	c.DoNotSell += o.DoNotSell
	for slug, t := range o.Categories {
		if c.Categories == nil {
			c.Categories = map[string]Tally{}
		}
		s := c.Categories[slug]
		s.Decisions += t.Decisions
		s.Granted += t.Granted
		c.Categories[slug] = s
	}
}

// Columns returns the scalar counters in a fixed order, with their column names, for the
// stores (which keep one column per counter).
func (c *Counts) Columns() []*int64 {
	return []*int64{&c.Shown, &c.PreferencesOpened, &c.Left, &c.FirstAcceptAll, &c.FirstRejectAll, &c.FirstCustom,
		&c.FirstDoNotSell, &c.FirstGPC, &c.DecisionMS, &c.Timed, &c.Decided, &c.AcceptAll, &c.RejectAll, &c.Custom,
		&c.GPC, &c.GDPR, &c.CCPA, &c.JurisdictionNone, &c.GPCSignal, &c.DoNotSell}
}

// ColumnNames are the stores' column names of Columns, in its order.
func ColumnNames() []string {
	return []string{"shown", "preferences_opened", "left_undecided", "first_accept_all", "first_reject_all", "first_custom",
		"first_do_not_sell", "first_gpc", "decision_ms", "timed", "decided", "accept_all", "reject_all", "custom",
		"gpc", "gdpr", "ccpa", "jur_none", "gpc_signal", "do_not_sell"}
}

// Row is one key's counts.
type Row struct {
	Key
	Counts
}

// Merge sums rows with equal keys and orders them by key: what a store writes in one upsert
// (a key twice in one statement is an error on Postgres; one order of row locks keeps two
// processes' upserts from deadlocking).
func Merge(rows []Row) []Row {
	m := make(map[Key]*Counts, len(rows))
	for i := range rows {
		if c := m[rows[i].Key]; c != nil {
			c.Add(&rows[i].Counts)
			continue
		}
		c := &Counts{}
		c.Add(&rows[i].Counts)
		m[rows[i].Key] = c
	}
	out := make([]Row, 0, len(m))
	for k, c := range m {
		out = append(out, Row{Key: k, Counts: *c})
	}
	slices.SortFunc(out, func(a, b Row) int { return a.Key.compare(b.Key) })
	return out
}
