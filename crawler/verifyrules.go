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
func (v *verifier) rewrite(gpc bool) func(*http.Request) *browser.LocalResponse {
	place, cred := v.place.Location, v.vo.Credential
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
// are the first run's; with places, Rules hold every run.
func (v *verifier) runPlaces(ctx context.Context) (*core.Verification, string, error) {
	places := slices.Clone(v.vo.Places)
	slices.SortStableFunc(places, func(a, b core.RulePlace) int {
		return boolRank(a.Behavior != "opt_in") - boolRank(b.Behavior != "opt_in")
	})
	if len(places) == 0 {
		v.place = core.RulePlace{}
		return v.run(ctx, true)
	}
	var top *core.Verification
	apiBase := ""
	for i, pl := range places {
		v.place = pl
		var ver *core.Verification
		var base string
		var err error
		switch pl.Behavior {
		case "opt_out", "no_banner":
			ver, base, err = v.runNotAsking(ctx, i == 0)
		default:
			ver, base, err = v.run(ctx, i == 0)
		}
		if err != nil {
			return nil, "", err
		}
		if i == 0 {
			cp := *ver
			top = &cp
		}
		if apiBase == "" {
			apiBase = base
		}
		rv := core.RuleVerification{RulePlace: pl, VerifiedAt: time.Now().UTC(), States: ver.States, Unreached: ver.Unreached,
			RejectOnFirstLayer: ver.RejectOnFirstLayer, ReopenButton: ver.ReopenButton}
		rv.BannerShown, rv.DoNotSellControl = v.shown, v.dnsShown
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

// runNotAsking runs the states of an opt_out or no_banner rule: no_decision (is the notice,
// and its Do Not Sell or Share control, shown?), do_not_sell under opt_out (the control
// clicked), and gpc where the rule honours Global Privacy Control.
func (v *verifier) runNotAsking(ctx context.Context, first bool) (*core.Verification, string, error) {
	ver, _, apiBase, err := v.noDecision(ctx, first)
	if err != nil || ver.Banner != core.BannerConsentd {
		return ver, apiBase, err
	}
	if v.place.Behavior == "opt_out" && v.place.DoNotSellLink {
		if !v.dnsShown {
			ver.Unreached = append(ver.Unreached, core.UnreachedState{State: core.StateDoNotSell,
				Reason: fmt.Sprintf("consentd's banner offered no Do Not Sell or Share control on %s", v.pages[0])})
		} else {
			st, err := v.decided(ctx, func(sc *stateCtx) error {
				return sc.mustClick(ctx, layerBanner, "do-not-sell")
			}, core.StateDoNotSell, keepConsentd)
			if err != nil {
				return nil, "", err
			}
			ver.States = append(ver.States, st)
		}
	}
	if v.place.HonorGPC {
		v.gpc = true
		sc, err := v.open(ctx)
		v.gpc = false
		if err != nil {
			return nil, "", err
		}
		obs, err := v.loadAll(ctx, sc, true, false)
		sc.close()
		if err != nil {
			return nil, "", err
		}
		ver.States = append(ver.States, v.record(core.StateGPC, obs, nil))
	}
	return ver, apiBase, nil
}
