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
	"sync"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler/browser"
)

// VerifyOptions are a verification's own options, beside the scan's Options.
type VerifyOptions struct {
	// ProjectKey, when set, is the project key the pages are expected to load; it overrides
	// the key the pages name (core.Verification.ProjectKey).
	ProjectKey string
	// Categories adds one state per category slug: only that category accepted.
	Categories []string
	// MaxItems bounds the requests, cookies, storage keys and held tags kept per state (zero:
	// core.MaxVerifiedItems).
	MaxItems int
	// Places are the regional rules to verify, each from its place (banner.VerificationPlaces):
	// one run per place, opt_in ones first. Empty: one run from the scanner's own place, as
	// an opt_in rule's.
	Places []core.RulePlace
	// Credential is the verifier's credential (core/verifier) sent, with the place, to
	// consentd's public endpoints. Without one the server sees the scanner's own place, and
	// the pages' consent posts are answered inside the browser: they never reach the server.
	Credential string
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

// errBannerNotShown is a decision that could not be made: consentd's runtime ran but showed
// no banner to decide with.
var errBannerNotShown = errors.New("consentd's banner was not shown")

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
// scan's of the no_decision state, with Mode core.ScanVerify and Verification set.
func (e *Engine) Verify(ctx context.Context, opts Options, browsers *browser.Pool, vo VerifyOptions) (*Result, error) {
	if err := needBrowser(browsers); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	if vo.MaxItems <= 0 {
		vo.MaxItems = core.MaxVerifiedItems
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
	v := &verifier{d: d, br: br, pages: pages, vo: vo, injected: map[string]bool{}, slots: make(chan struct{}, opts.StatesAtOnce)}
	_, injected := d.storefrontCookies(pages[0])
	for _, k := range injected {
		v.injected[k] = true
	}
	ver, apiBase, err := v.runPlaces(ctx)
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
	r := s.result()
	r.Mode = core.ScanVerify
	s.deepResult(r)
	r.Verification = ver
	if ver.Banner == core.BannerConsentd && ver.ProjectKey != nil && apiBase != "" {
		r.PublicConfig, r.PublicConfigError = fetchPublicConfig(ctx, d.tr, apiBase, *ver.ProjectKey)
	}
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
	// injected are the storefront cookies the scan gives every state ("name\x00domain"), known
	// before the first state and only read afterwards.
	injected map[string]bool
	// slots bound the browser contexts open at once (Options.StatesAtOnce): a state takes one
	// when it opens its context and gives it back when it closes it.
	slots chan struct{}
	// credMu guards credOrigin, the origin the credential was pinned to (rewrite).
	credMu     sync.Mutex
	credOrigin string
}

// ruleRun is one run of the verification: the place whose rule it verifies (zero: the
// scanner's own), and what its no_decision pages showed: consentd's first layer, and its Do Not
// Sell or Share control.
type ruleRun struct {
	place           core.RulePlace
	shown, dnsShown bool
}

// together runs fs at once and returns their errors, in the order of fs.
func together(fs ...func() error) []error {
	errs := make([]error, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f()
		}()
	}
	wg.Wait()
	return errs
}

// firstError is the first non-nil error of errs.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// noDecision visits every page before any decision (first: as run says) and returns what was
// seen, the pages' observations, and the runtime's API base URL.
func (v *verifier) noDecision(ctx context.Context, rr *ruleRun, first bool) (*core.Verification, []*pageObs, string, error) {
	ver, projectKey, apiBase := &core.Verification{Banner: core.BannerNone, States: []core.VerifiedState{}, Unreached: []core.UnreachedState{}}, "", ""
	nd, err := v.open(ctx, rr, false)
	if err != nil {
		return nil, nil, "", err
	}
	obs, err := v.loadAll(ctx, nd, true, first)
	if err == nil && first {
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
		return nil, nil, "", err
	}
	st := v.record(core.StateNoDecision, obs, nil)
	ver.States = append(ver.States, st)
	cmd := len(obs) > 0
	rr.shown, rr.dnsShown = false, false
	for _, o := range obs {
		rr.shown = rr.shown || o.info.Banner
		rr.dnsShown = rr.dnsShown || o.info.DoNotSell
		if o.info.Consentd {
			ver.Banner = core.BannerConsentd
		}
		if projectKey == "" && o.info.ProjectKey != "" {
			projectKey, apiBase = o.info.ProjectKey, publicBase(o.info.Src)
		}
		cmd = cmd && o.info.ConsentDefault >= 0 && (o.info.GoogleRequest < 0 || o.info.ConsentDefault <= o.info.GoogleRequest)
	}
	ver.ConsentModeDefault = cmd
	if v.vo.ProjectKey != "" {
		projectKey = v.vo.ProjectKey
	}
	if projectKey != "" {
		ver.ProjectKey = &projectKey
	}
	return ver, obs, apiBase, nil
}

// run visits the states of rr's rule (opt_in, or the scanner's own place). first is the
// verification's first run: its no_decision pages are the deep scan's, and discover the pages
// links made by script reach. It returns the base URL of the API of the consentd runtime the
// pages load, "" without one.
func (v *verifier) run(ctx context.Context, rr *ruleRun, first bool) (*core.Verification, string, error) {
	ver, _, apiBase, err := v.noDecision(ctx, rr, first)
	if err != nil {
		return nil, "", err
	}
	if err := v.afterNoDecision(ctx, rr, ver); err != nil {
		return nil, "", err
	}
	return ver, apiBase, nil
}

// afterNoDecision visits, into ver, the states of rr's rule after no_decision, when the pages
// run consentd's runtime: those after a decision (decisions), or under opt_out and no_banner
// those of a visitor not asked (notAsking).
func (v *verifier) afterNoDecision(ctx context.Context, rr *ruleRun, ver *core.Verification) error {
	if ver.Banner != core.BannerConsentd {
		return nil
	}
	switch rr.place.Behavior {
	case "opt_out", "no_banner":
		return v.notAsking(ctx, rr, ver)
	default:
		return v.decisions(ctx, rr, ver)
	}
}

// decisions visits, into ver, the states after a decision: reject_all, accept_all then
// withdrawn in accept_all's browser context, and each category's, each state in a browser
// context of its own and all at once (as StatesAtOnce allows), since no state's context sees
// another's. Their results, and what a failure returns, are those of visiting them in that
// order: when reject_all finds no banner to decide with, the states after a decision are
// unreached, whatever the others met.
func (v *verifier) decisions(ctx context.Context, rr *ruleRun, ver *core.Verification) error {
	var rejected, accepted, withdrawn core.VerifiedState
	var firstLayer, reopen bool
	cats := make([]core.VerifiedState, len(v.vo.Categories))
	fs := []func() error{
		func() (err error) {
			rejected, err = v.decided(ctx, rr, func(sc *stateCtx) error {
				res, err := sc.click(ctx, layerBanner, "reject", v.d.s.opts.QuietMax)
				if err != nil {
					return err
				}
				if res == clickAbsent {
					return errBannerNotShown
				}
				firstLayer = res == clickDone
				if res != clickDone {
					return sc.rejectElsewhere(ctx)
				}
				return nil
			}, core.StateRejectAll, keepConsentd)
			return err
		},
		func() (err error) {
			accepted, withdrawn, reopen, err = v.acceptWithdraw(ctx, rr)
			return err
		},
	}
	for i, slug := range v.vo.Categories {
		fs = append(fs, func() (err error) {
			cats[i], err = v.decided(ctx, rr, func(sc *stateCtx) error {
				if err := sc.mustClick(ctx, layerBanner, "preferences"); err != nil {
					return err
				}
				return sc.chooseCategory(ctx, slug, v.d.s.opts.QuietMax)
			}, core.StateCategoryPrefix+slug, keepConsentd)
			return err
		})
	}
	errs := together(fs...)
	if errors.Is(errs[0], errBannerNotShown) {
		// No visitor can decide on this site: the states after a decision are unreachable,
		// and what happened before any decision is the report.
		reason := fmt.Sprintf("consentd's runtime ran but showed no banner on %s within %v, so no decision could be made (is the banner's defaultBehavior no_banner?)",
			v.pages[0], v.d.s.opts.QuietMax)
		for _, name := range append([]string{core.StateRejectAll, core.StateAcceptAll, core.StateWithdrawn}, prefixed(v.vo.Categories)...) {
			ver.Unreached = append(ver.Unreached, core.UnreachedState{State: name, Reason: reason})
		}
		return nil
	}
	if err := firstError(errs); err != nil {
		return err
	}
	ver.RejectOnFirstLayer, ver.ReopenButton = firstLayer, reopen
	ver.States = append(append(ver.States, rejected, accepted, withdrawn), cats...)
	return nil
}

// acceptWithdraw visits accept_all, then withdrawn in the same browser context, and reports
// whether the withdrawal went through the reopen button.
func (v *verifier) acceptWithdraw(ctx context.Context, rr *ruleRun) (accepted, withdrawn core.VerifiedState, reopen bool, err error) {
	acc, err := v.open(ctx, rr, false)
	if err != nil {
		return accepted, withdrawn, false, err
	}
	defer acc.close()
	if _, err := v.decide(ctx, acc, func(sc *stateCtx) error { return sc.mustClick(ctx, layerBanner, "accept") }, keepAll); err != nil {
		return accepted, withdrawn, false, err
	}
	obs, err := v.loadAll(ctx, acc, false, false)
	if err != nil {
		return accepted, withdrawn, false, err
	}
	accepted = v.record(core.StateAcceptAll, obs, nil)
	base, err := v.decide(ctx, acc, func(sc *stateCtx) error {
		res, err := sc.click(ctx, layerReopen, "reopen", v.d.s.opts.QuietMax)
		if err != nil {
			return err
		}
		reopen = res == clickDone
		if res != clickDone {
			return sc.eval(ctx, "window.consentd.rejectAll()")
		}
		return sc.mustClick(ctx, layerPrefs, "reject")
	}, deniedOnly)
	if err != nil {
		return accepted, withdrawn, false, err
	}
	obs, err = v.loadAll(ctx, acc, false, false)
	if err != nil {
		return accepted, withdrawn, false, err
	}
	return accepted, v.record(core.StateWithdrawn, obs, base), reopen, nil
}

// prefixed are the category states of slugs.
func prefixed(slugs []string) []string {
	out := make([]string, 0, len(slugs))
	for _, c := range slugs {
		out = append(out, core.StateCategoryPrefix+c)
	}
	return out
}

// decided runs a state in a fresh context: the first page, the decision, the clearing, then
// every page.
func (v *verifier) decided(ctx context.Context, rr *ruleRun, decision func(*stateCtx) error, name string, clear clearMode) (core.VerifiedState, error) {
	sc, err := v.open(ctx, rr, false)
	if err != nil {
		return core.VerifiedState{}, err
	}
	defer sc.close()
	base, err := v.decide(ctx, sc, decision, clear)
	if err != nil {
		return core.VerifiedState{}, err
	}
	obs, err := v.loadAll(ctx, sc, false, false)
	if err != nil {
		return core.VerifiedState{}, err
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
