package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
)

// ModeVerify is the Result.Mode of a verification scan (Verify).
const ModeVerify = "verify"

// Consent states a verification visits (the same words as core's).
const (
	StateNoDecision     = "no_decision"
	StateRejectAll      = "reject_all"
	StateAcceptAll      = "accept_all"
	StateWithdrawn      = "withdrawn"
	StateCategoryPrefix = "category:"
)

// Banner kinds a verification finds.
const (
	BannerConsentd = "consentd"
	BannerNone     = "none"
)

// DefaultMaxVerifiedItems bounds the requests, cookies and storage keys kept per state unless
// VerifyOptions.MaxItems says otherwise.
const DefaultMaxVerifiedItems = 500

// VerifyOptions are a verification's own options, beside the scan's Options.
type VerifyOptions struct {
	// ProjectKey, when set, is the project key the pages are expected to load; it overrides
	// the key the pages name (Verification.ProjectKey).
	ProjectKey string
	// Categories adds one state per category slug: only that category accepted.
	Categories []string
	// MaxItems bounds the requests, cookies and storage keys kept per state (zero:
	// DefaultMaxVerifiedItems).
	MaxItems int
}

// Verification is what a verification saw, per consent state.
type Verification struct {
	// Banner is BannerConsentd when consentd's runtime ran on the pages, else BannerNone (and
	// only the no_decision state was visited).
	Banner string `json:"banner"`
	// ProjectKey and APIBase are those of the runtime the pages load (script[data-project-key]),
	// ProjectKey overridden by VerifyOptions.ProjectKey.
	ProjectKey string `json:"projectKey,omitempty"`
	APIBase    string `json:"apiBase,omitempty"`
	// ConsentModeDefault is true when, on every page of the no_decision state, Google Consent
	// Mode's default command was in window.dataLayer before any Google tag request.
	ConsentModeDefault bool `json:"consentModeDefault"`
	// RejectOnFirstLayer is true when the banner's first layer had a reject button.
	RejectOnFirstLayer bool `json:"rejectOnFirstLayer"`
	// ReopenButton is true when, after a decision, the page showed the runtime's reopen button
	// (the lasting way to withdraw used for the withdrawn state).
	ReopenButton bool            `json:"reopenButton"`
	States       []VerifiedState `json:"states"`
	// Unreached are the states that could not be set up, with why (consentd's banner was
	// never shown, as with defaultBehavior no_banner: no visitor can decide); the states
	// visited before still stand.
	Unreached []UnreachedState `json:"unreached,omitempty"`
	// PublicConfig is the runtime's public configuration ({APIBase}/{ProjectKey}/config),
	// fetched through the scan's transport, or PublicConfigError why it could not be; neither
	// is part of the JSON (`consentd verify` reads them).
	PublicConfig      []byte `json:"-"`
	PublicConfigError string `json:"-"`
}

// maxPublicConfig bounds the public configuration read.
const maxPublicConfig = 4 << 20

// fetchPublicConfig reads the runtime's public configuration, in English.
func fetchPublicConfig(ctx context.Context, tr http.RoundTripper, apiBase, projectKey string) ([]byte, string) {
	u := strings.TrimSuffix(apiBase, "/") + strings.TrimPrefix(core.PublicPath(projectKey, core.PublicConfigPath), core.PublicPrefix) + "?lang=en"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err.Error()
	}
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Sprintf("%s could not be fetched: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxPublicConfig))
	if err != nil {
		return nil, fmt.Sprintf("%s could not be read: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Sprintf("%s answered %s", u, resp.Status)
	}
	return body, ""
}

// VerifiedState is what the browser did in one consent state, over every page: requests,
// cookies and storage of library services and, with an empty Service, third-party ones no
// service claims.
type VerifiedState struct {
	State    string            `json:"state"`
	Pages    []string          `json:"pages"`
	Requests []VerifiedRequest `json:"requests"`
	// Cookies and Storage are what the browser held after the state's pages loaded; for a
	// state after a decision, what was set or set again after the decision.
	Cookies      []VerifiedStorage `json:"cookies"`
	Storage      []VerifiedStorage `json:"storage"`
	HeldUnmarked []HeldTag         `json:"heldUnmarked"`
}

// UnreachedState is a state a verification could not set up.
type UnreachedState struct {
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// errBannerNotShown is a decision that could not be made: consentd's runtime ran but showed
// no banner to decide with.
var errBannerNotShown = errors.New("consentd's banner was not shown")

// VerifiedRequest is one request the browser made in a state.
type VerifiedRequest struct {
	URL        string `json:"url"`
	Page       string `json:"page"`
	Service    string `json:"service"`
	Category   string `json:"category"`
	Type       string `json:"type"`
	ThirdParty bool   `json:"thirdParty"`
}

// VerifiedStorage is a cookie (Kind "cookie") or storage key (StorageLocal, StorageSession).
type VerifiedStorage struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Domain     string `json:"domain"`
	Page       string `json:"page"`
	Service    string `json:"service"`
	Category   string `json:"category"`
	ThirdParty bool   `json:"thirdParty"`
}

// StorageCookie is VerifiedStorage.Kind of a cookie.
const StorageCookie = "cookie"

// HeldTag is an unmarked page tag the runtime held back (consentd.heldUnmarked).
type HeldTag struct {
	URL      string `json:"url"`
	Page     string `json:"page"`
	Service  string `json:"service"`
	Category string `json:"category"`
	// Requested is true when the browser requested URL in the state anyway.
	Requested bool `json:"requested"`
}

// Verify is a verification scan: the static pass discovers the pages (as DeepCrawl's does),
// then the browser loads them once per consent state, each state in a fresh browser context
// shared by its pages as a visitor's browser is, PagesAtOnce at a time, driving consentd's
// banner by clicking its buttons:
//
//   - no_decision: the first page, then the others, nothing clicked;
//   - reject_all: the first page, its banner's first-layer reject button (else reject through
//     the preferences, else consentd.rejectAll()), every cookie and storage key but consentd's
//     own deleted, then every page;
//   - accept_all: the first page, accept, then every page;
//   - withdrawn: in accept_all's browser context, the first page, withdrawal through the
//     reopen button and the preferences' reject (else consentd.rejectAll()), the cookies of
//     the denied categories the runtime left and the storage deleted, then every page;
//   - category:<slug> for each of vo.Categories: the first page, the preferences with only
//     that category switched on, saved, cleared as for reject, then every page.
//
// Without consentd's runtime on the pages only no_decision is visited. The Result is the deep
// scan's of the no_decision state, with Mode ModeVerify and Verification set.
func (e *Engine) Verify(ctx context.Context, opts Options, browsers *browser.Pool, vo VerifyOptions) (*Result, error) {
	if err := needBrowser(browsers); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if vo.MaxItems <= 0 {
		vo.MaxItems = DefaultMaxVerifiedItems
	}
	for _, c := range vo.Categories {
		if c == "" || strings.ContainsAny(c, " \t\"'\\") {
			return nil, &Error{Kind: KindInvalidInput, Message: fmt.Sprintf("category %q: a category slug expected", c)}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	d, err := e.browserPass(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer d.tr.CloseIdleConnections()
	s := d.s
	pages := firstPageFirst(s.htmlPages, opts.StartURLs)
	if len(pages) == 0 {
		return nil, &Error{Kind: KindInvalidInput, Message: "no HTML page could be fetched, so there is nothing to verify"}
	}
	br, err := browsers.Acquire(ctx)
	if err != nil {
		return nil, browserError(err)
	}
	d.browsers, d.br = browsers, br
	defer func() { browsers.Release(br, !br.Alive()) }()
	v := &verifier{d: d, br: br, pages: pages, vo: vo, injected: map[string]bool{}}
	ver, err := v.run(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Kind: KindBrowser, Temporary: true, Err: err, Message: "the verification did not finish within its time limit"}
		}
		if !br.Alive() || !br.Responsive() {
			return nil, &Error{Kind: KindBrowser, Temporary: true, Err: err,
				Message: "the browser crashed or stopped answering during the verification; the scan will be retried"}
		}
		return nil, &Error{Kind: KindBrowser, Err: err, Message: "the verification could not drive the browser: " + err.Error()}
	}
	if d.budget.Hit() {
		s.pageError(pages[0], 0, fmt.Sprintf("the scan's download budget of %d bytes was used up; later requests of the browser were refused", d.budget.Limit()))
	}
	if ver.Banner == BannerConsentd && ver.ProjectKey != "" && ver.APIBase != "" {
		ver.PublicConfig, ver.PublicConfigError = fetchPublicConfig(ctx, d.tr, ver.APIBase, ver.ProjectKey)
	}
	r := s.result()
	r.Mode = ModeVerify
	s.deepResult(r)
	r.Verification = ver
	return r, nil
}

// needBrowser is the failure of a browser scan without a usable browser pool.
func needBrowser(browsers *browser.Pool) error {
	if browsers == nil {
		return noBrowser("this process has no browser pool")
	}
	return browserError(browsers.Available())
}

// firstPageFirst sorts the pages, the first start URL first: the page a visitor lands on,
// where the banner is driven.
func firstPageFirst(pages, start []string) []string {
	out := append([]string(nil), pages...)
	sort.Strings(out)
	if len(start) == 0 {
		return out
	}
	first := start[0]
	if u, err := url.Parse(first); err == nil && u.Path == "" {
		u.Path = "/"
		first = u.String()
	}
	if i := slices.Index(out, first); i > 0 {
		out = append(append([]string{first}, out[:i]...), out[i+1:]...)
	}
	return out
}

// verifier runs the states of one verification on one browser.
type verifier struct {
	d     *deepScan
	br    *browser.Browser
	pages []string
	vo    VerifyOptions
	// injected are the storefront cookies the scan gives every state ("name\x00domain").
	injected map[string]bool
}

// run visits the states in order.
func (v *verifier) run(ctx context.Context) (*Verification, error) {
	ver := &Verification{Banner: BannerNone}
	nd, err := v.open(ctx)
	if err != nil {
		return nil, err
	}
	obs, err := v.loadAll(ctx, nd, true, true)
	if err == nil {
		// Pages only links made by script reach are verified too: loaded now, before any
		// decision, and in every later state.
		if extra := v.scriptLinked(ctx, obs); len(extra) > 0 {
			known := v.pages
			v.pages = extra
			var more []*pageObs
			more, err = v.loadAll(ctx, nd, false, true)
			v.pages = append(known, extra...)
			obs = append(obs, more...)
			for _, o := range more {
				v.d.s.addBrowserPage(o.visit(nd.proxy.Records(), v.injected))
			}
		}
	}
	nd.close()
	if err != nil {
		return nil, err
	}
	st := v.record(StateNoDecision, obs, nil)
	ver.States = append(ver.States, st)
	cmd := len(obs) > 0
	for _, o := range obs {
		if o.info.Consentd {
			ver.Banner = BannerConsentd
		}
		if ver.ProjectKey == "" && o.info.ProjectKey != "" {
			ver.ProjectKey, ver.APIBase = o.info.ProjectKey, publicBase(o.info.Src)
		}
		cmd = cmd && o.info.ConsentDefault >= 0 && (o.info.GoogleRequest < 0 || o.info.ConsentDefault <= o.info.GoogleRequest)
	}
	ver.ConsentModeDefault = cmd
	if v.vo.ProjectKey != "" {
		ver.ProjectKey = v.vo.ProjectKey
	}
	if ver.Banner != BannerConsentd {
		return ver, nil
	}
	// reject_all
	first, err := v.decided(ctx, func(sc *stateCtx) error {
		res, err := sc.click(ctx, layerBanner, "reject", v.d.s.opts.QuietMax)
		if err != nil {
			return err
		}
		if res == clickAbsent {
			return errBannerNotShown
		}
		ver.RejectOnFirstLayer = res == clickDone
		if res != clickDone {
			return sc.rejectElsewhere(ctx)
		}
		return nil
	}, StateRejectAll, keepConsentd)
	if errors.Is(err, errBannerNotShown) {
		// No visitor can decide on this site: the states after a decision are unreachable,
		// and what happened before any decision is the report.
		reason := fmt.Sprintf("consentd's runtime ran but showed no banner on %s within %v, so no decision could be made (is the banner's defaultBehavior no_banner?)",
			v.pages[0], v.d.s.opts.QuietMax)
		for _, name := range append([]string{StateRejectAll, StateAcceptAll, StateWithdrawn}, prefixed(v.vo.Categories)...) {
			ver.Unreached = append(ver.Unreached, UnreachedState{State: name, Reason: reason})
		}
		return ver, nil
	}
	if err != nil {
		return nil, err
	}
	ver.States = append(ver.States, first)
	// accept_all, then withdrawn in the same context
	acc, err := v.open(ctx)
	if err != nil {
		return nil, err
	}
	defer acc.close()
	if _, err := v.decide(ctx, acc, func(sc *stateCtx) error { return sc.mustClick(ctx, layerBanner, "accept") }, keepAll); err != nil {
		return nil, err
	}
	obs, err = v.loadAll(ctx, acc, false, false)
	if err != nil {
		return nil, err
	}
	ver.States = append(ver.States, v.record(StateAcceptAll, obs, nil))
	base, err := v.decide(ctx, acc, func(sc *stateCtx) error {
		res, err := sc.click(ctx, layerReopen, "reopen", v.d.s.opts.QuietMax)
		if err != nil {
			return err
		}
		ver.ReopenButton = res == clickDone
		if res != clickDone {
			return sc.eval(ctx, "window.consentd.rejectAll()")
		}
		return sc.mustClick(ctx, layerPrefs, "reject")
	}, deniedOnly)
	if err != nil {
		return nil, err
	}
	obs, err = v.loadAll(ctx, acc, false, false)
	if err != nil {
		return nil, err
	}
	ver.States = append(ver.States, v.record(StateWithdrawn, obs, base))
	for _, slug := range v.vo.Categories {
		st, err := v.decided(ctx, func(sc *stateCtx) error {
			if err := sc.mustClick(ctx, layerBanner, "preferences"); err != nil {
				return err
			}
			return sc.chooseCategory(ctx, slug, v.d.s.opts.QuietMax)
		}, StateCategoryPrefix+slug, keepConsentd)
		if err != nil {
			return nil, err
		}
		ver.States = append(ver.States, st)
	}
	return ver, nil
}

// prefixed are the category states of slugs.
func prefixed(slugs []string) []string {
	out := make([]string, 0, len(slugs))
	for _, c := range slugs {
		out = append(out, StateCategoryPrefix+c)
	}
	return out
}

// decided runs a state in a fresh context: the first page, the decision, the clearing, then
// every page.
func (v *verifier) decided(ctx context.Context, decision func(*stateCtx) error, name string, clear clearMode) (VerifiedState, error) {
	sc, err := v.open(ctx)
	if err != nil {
		return VerifiedState{}, err
	}
	defer sc.close()
	base, err := v.decide(ctx, sc, decision, clear)
	if err != nil {
		return VerifiedState{}, err
	}
	obs, err := v.loadAll(ctx, sc, false, false)
	if err != nil {
		return VerifiedState{}, err
	}
	return v.record(name, obs, base), nil
}

// decide loads the first page in the state's control tab, makes the decision there, waits
// for what it set off, clears storage (unless clear is keepAll) while the page is open, leaves
// the page, so that nothing it runs acts after the clearing, and clears cookies. It returns
// the cookies kept (nil for keepAll).
func (v *verifier) decide(ctx context.Context, sc *stateCtx, decision func(*stateCtx) error, clear clearMode) (map[string]string, error) {
	opts := v.d.s.opts
	if err := sc.navigate(ctx, v.pages[0], opts.PageTimeout); err != nil {
		return nil, err
	}
	sc.proxy.WaitQuiet(ctx, opts.QuietFor, opts.QuietMax)
	if err := decision(sc); err != nil {
		return nil, err
	}
	sc.proxy.WaitQuiet(ctx, opts.QuietFor, opts.QuietMax)
	if clear != keepAll {
		if err := sc.clearStorage(ctx); err != nil {
			return nil, err
		}
	}
	if err := sc.navigate(ctx, "about:blank", opts.PageTimeout); err != nil {
		return nil, err
	}
	if clear == keepAll {
		return nil, nil
	}
	return sc.clearCookies(v.d.s, clear, v.injected)
}

// scriptLinked are the same-site pages the no_decision pages link to by script (browser.LinksJS) that
// the static pass did not reach, within MaxPages and robots.txt.
func (v *verifier) scriptLinked(ctx context.Context, obs []*pageObs) []string {
	s := v.d.s
	known := map[string]bool{}
	s.mu.Lock()
	for _, p := range s.pages {
		known[p.URL] = true
		if p.FinalURL != "" {
			known[p.FinalURL] = true
		}
	}
	count := len(s.pages)
	s.mu.Unlock()
	robots := newRobotsCache(v.d.tr, s.opts)
	var out []string
	for _, o := range obs {
		if o == nil {
			continue
		}
		for _, l := range o.info.Links {
			u, err := url.Parse(l)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
				continue
			}
			k := normalizeURL(u)
			if known[k] || !s.sameSite(k) || count >= s.opts.MaxPages || !robots.allowed(ctx, u) {
				continue
			}
			known[k] = true
			count++
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
