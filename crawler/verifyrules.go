package crawler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	vcred "github.com/consentd/consentd/core/verifier"
	"github.com/consentd/consentd/crawler/browser"
)

// gpcScript makes the page's browser one that sends Global Privacy Control
// (navigator.globalPrivacyControl); the proxy sends Sec-GPC: 1 with every request.
const gpcScript = `try { Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { configurable: true, get: function () { return true; } }); } catch (e) {}`

// rewrite is what the proxy of a state's context does to its requests: Sec-GPC for a browser
// sending the signal; to consentd's public endpoints, the verifier's credential and the place
// of the run; without a credential, a consent post is answered here (201, a receipt of no
// record), so that a verification writes nothing into the site's proof of consent.
//
// The credential goes only to one origin: that of the verification's first request for the
// site's own public resources (its project key, when known: the loader the site's snippet
// loads first), so that a tag on the page that calls a host of its own with a consentd-shaped
// path never receives it. A consent post the credential does not go with is answered here.
func (v *verifier) rewrite(pl core.RulePlace, gpc bool) func(*http.Request) *browser.LocalResponse {
	place, cred := pl.Location, v.vo.Credential
	return func(r *http.Request) *browser.LocalResponse {
		if gpc {
			r.Header.Set("Sec-GPC", "1")
		}
		resource, key, ok := core.ParsePublicPath(r.URL.Path)
		if !ok {
			return nil
		}
		if cred != "" && v.credentialGoesTo(r.URL, key) {
			r.Header.Set(vcred.Header, cred)
			if place != "" {
				r.Header.Set(vcred.LocationHeader, place)
			}
			return nil
		}
		if resource != core.PublicConsentPath || r.Method != http.MethodPost {
			return nil
		}
		var body struct {
			VisitorID string `json:"visitorId"`
		}
		_ = json.NewDecoder(http.MaxBytesReader(nil, r.Body, 16<<10)).Decode(&body)
		if body.VisitorID == "" {
			body.VisitorID = "verifier"
		}
		receipt, _ := json.Marshal(map[string]string{"id": "verifier-local", "visitorId": body.VisitorID})
		return &browser.LocalResponse{Status: http.StatusCreated, ContentType: "application/json", Body: receipt}
	}
}

// credentialGoesTo reports whether the verifier's credential may go to u, a request for a
// consentd public resource of project key (see rewrite).
func (v *verifier) credentialGoesTo(u *url.URL, key string) bool {
	origin := u.Scheme + "://" + u.Host
	v.credMu.Lock()
	defer v.credMu.Unlock()
	if v.credOrigin == "" {
		if v.vo.ProjectKey != "" && key != v.vo.ProjectKey {
			return false
		}
		v.credOrigin = origin
	}
	return strings.EqualFold(origin, v.credOrigin)
}

// runPlaces runs the verification once per place (VerifyOptions.Places, opt_in ones first),
// or once from the scanner's own place without any. The Verification's States and the like
// are the first run's; with places, Rules hold every run, in that order.
//
// The first run's no_decision comes first and alone: its pages are the deep scan's and find
// the pages links made by script reach, which every later state visits. Then the first run's
// other states and the other runs go at once, each state in a browser context of its own (as
// StatesAtOnce allows); what they record does not depend on that order.
func (v *verifier) runPlaces(ctx context.Context) (*core.Verification, string, error) {
	places := slices.Clone(v.vo.Places)
	slices.SortStableFunc(places, func(a, b core.RulePlace) int {
		return boolRank(a.Behavior != "opt_in") - boolRank(b.Behavior != "opt_in")
	})
	if len(places) == 0 {
		return v.run(ctx, &ruleRun{}, true)
	}
	runs := make([]*ruleRun, len(places))
	vers := make([]*core.Verification, len(places))
	bases := make([]string, len(places))
	at := make([]time.Time, len(places))
	for i, pl := range places {
		runs[i] = &ruleRun{place: pl}
	}
	var err error
	if vers[0], _, bases[0], err = v.noDecision(ctx, runs[0], true); err != nil {
		return nil, "", err
	}
	fs := []func() error{func() error {
		err := v.afterNoDecision(ctx, runs[0], vers[0])
		at[0] = time.Now().UTC()
		return err
	}}
	for i := 1; i < len(places); i++ {
		fs = append(fs, func() (err error) {
			vers[i], bases[i], err = v.run(ctx, runs[i], false)
			at[i] = time.Now().UTC()
			return err
		})
	}
	if err := firstError(together(fs...)); err != nil {
		return nil, "", err
	}
	cp := *vers[0]
	top, apiBase := &cp, ""
	for i, pl := range places {
		ver := vers[i]
		if apiBase == "" {
			apiBase = bases[i]
		}
		rv := core.RuleVerification{RulePlace: pl, VerifiedAt: at[i], States: ver.States, Unreached: ver.Unreached,
			RejectOnFirstLayer: ver.RejectOnFirstLayer, ReopenButton: ver.ReopenButton}
		rv.BannerShown, rv.DoNotSellControl = runs[i].shown, runs[i].dnsShown
		top.Rules = append(top.Rules, rv)
		if ver.Banner == core.BannerConsentd {
			top.Banner = core.BannerConsentd
		}
	}
	return top, apiBase, nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// notAsking visits, into ver, the states of an opt_out or no_banner rule after no_decision
// (is the notice, and its Do Not Sell or Share control, shown?): do_not_sell under opt_out (the
// control clicked), and gpc where the rule honours Global Privacy Control, at once, each in a
// browser context of its own.
func (v *verifier) notAsking(ctx context.Context, rr *ruleRun, ver *core.Verification) error {
	var dns, gpc *core.VerifiedState
	var unreached []core.UnreachedState
	var fs []func() error
	if rr.place.Behavior == "opt_out" && rr.place.DoNotSellLink {
		if !rr.dnsShown {
			unreached = append(unreached, core.UnreachedState{State: core.StateDoNotSell,
				Reason: fmt.Sprintf("consentd's banner offered no Do Not Sell or Share control on %s", v.pages[0])})
		} else {
			fs = append(fs, func() error {
				st, err := v.decided(ctx, rr, func(sc *stateCtx) error {
					return sc.mustClick(ctx, layerBanner, "do-not-sell")
				}, core.StateDoNotSell, keepConsentd)
				dns = &st
				return err
			})
		}
	}
	if rr.place.HonorGPC {
		fs = append(fs, func() error {
			sc, err := v.open(ctx, rr, true)
			if err != nil {
				return err
			}
			obs, err := v.loadAll(ctx, sc, true, false)
			sc.close()
			if err != nil {
				return err
			}
			st := v.record(core.StateGPC, obs, nil)
			gpc = &st
			return nil
		})
	}
	if err := firstError(together(fs...)); err != nil {
		return err
	}
	ver.Unreached = append(ver.Unreached, unreached...)
	for _, st := range []*core.VerifiedState{dns, gpc} {
		if st != nil {
			ver.States = append(ver.States, *st)
		}
	}
	return nil
}
