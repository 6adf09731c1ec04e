package scan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/library"
)

// The verification rules: what each consent state of a verification scan may let through.
//
// A request, cookie or storage key of a service counts in the site's own category for that
// service when the site configured it (a required category is allowed in every state), and in
// the library's category otherwise (essential is allowed in every state). Then:
//   - no_decision, reject_all and withdrawn allow only those;
//   - category:<slug> allows those and the category <slug>;
//   - accept_all allows everything.
//
// What no service claims is reported only when third-party, as a notice to review: a
// first-party cookie no service claims is most often the site's own.

// stateRule is the rule a state's disallowed observations break; "" for a state that allows
// everything or is unknown.
func stateRule(state string) string {
	switch {
	case state == core.StateNoDecision:
		return "enforcement.before-decision"
	case state == core.StateRejectAll:
		return "enforcement.after-reject"
	case state == core.StateWithdrawn:
		return "enforcement.after-withdrawal"
	case strings.HasPrefix(state, core.StateCategoryPrefix):
		return "enforcement.category-leak"
	}
	return ""
}

// categoryOf is the category an observation of service counts in: its slug, and whether it is
// allowed without consent. known is false when no service claims it.
func (e *evaluation) categoryOf(service, libCategory string) (slug string, required, known bool) {
	if service == "" {
		return "", false, false
	}
	if e.site != nil {
		if s, ok := e.site.svcBySlug[service]; ok {
			if c := e.site.catByID[s.CategoryID]; c != nil {
				return c.Slug, c.IsRequired, true
			}
		}
	}
	if libCategory == "" && e.lib != nil {
		if ls, ok := e.lib.Service(service); ok {
			libCategory = ls.Category
		}
	}
	if libCategory == "" {
		return "", false, false
	}
	return libCategory, libCategory == library.CategoryEssential, true
}

// allowedIn reports whether a state lets a category run.
func allowedIn(state, category string, required bool) bool {
	if required || state == core.StateAcceptAll {
		return true
	}
	if slug, ok := strings.CutPrefix(state, core.StateCategoryPrefix); ok {
		return slug == category
	}
	return stateRule(state) == ""
}

// observation is one request, cookie or storage key of a state, as the rules see it.
type observation struct {
	service, category, page string
	thirdParty              bool
	request, cookie         string
	what                    string
}

func observations(st *core.VerifiedState) []observation {
	var out []observation
	for _, r := range st.Requests {
		out = append(out, observation{service: r.Service, category: r.Category, page: r.Page, thirdParty: r.ThirdParty,
			request: r.URL, what: "requested " + r.URL})
	}
	for _, list := range [][]core.VerifiedStorage{st.Cookies, st.Storage} {
		for _, k := range list {
			name := k.Name + " (" + k.Domain + ")"
			what := "set cookie " + name
			if k.Kind != core.StorageCookie {
				what = "wrote " + k.Kind + " key " + name
			}
			out = append(out, observation{service: k.Service, category: k.Category, page: k.Page, thirdParty: k.ThirdParty,
				cookie: name, what: what})
		}
	}
	return out
}

// verificationRun judges one run of a verification that asks before anything runs (an opt_in
// rule's, or the one run from the scanner's own place): what each consent state let through.
func (e *evaluation) verificationRun(v *core.Verification) {
	e.check("enforcement.no-consentd-banner", "enforcement.unattributed", "consent.gcm-default")
	if v.Banner == core.BannerNone {
		// enforcement.no-consentd-banner: without consentd's runtime the engine cannot drive the
		// site's banner, so only the first visit was checked; say so, so that a clean report
		// is not read as proof that reject is obeyed.
		pages := 0
		for _, st := range v.States {
			if st.State == core.StateNoDecision {
				pages = len(st.Pages)
			}
		}
		e.add("enforcement.no-consentd-banner", "", map[string]string{"pages": strconv.Itoa(pages)},
			Evidence{ScanID: strp(e.scanID), State: strp(core.StateNoDecision)})
	} else {
		e.check("enforcement.unmarked-tag-fetched", "enforcement.states-unreached")
		// enforcement.states-unreached: the runtime ran but no decision could be made (no banner
		// shown): say which states were not checked, so that a report without their findings is
		// not read as proof that reject is obeyed.
		var unreached []string
		reason, rejectReached := "", true
		for _, u := range v.Unreached {
			unreached = append(unreached, u.State)
			if reason == "" {
				reason = u.Reason
			}
			rejectReached = rejectReached && u.State != core.StateRejectAll
		}
		if len(unreached) > 0 {
			e.add("enforcement.states-unreached", "", map[string]string{"states": strings.Join(unreached, ", "), "reason": reason},
				Evidence{ScanID: strp(e.scanID), State: strp(unreached[0])})
		}
		// enforcement.reject-not-shown: the runtime always renders reject beside accept, so a
		// first layer without a clickable reject button means the page hid or broke it; the
		// configuration rule cannot see that, the browser can. Not judged when no banner was
		// shown at all (its premise).
		if rejectReached {
			e.check("enforcement.reject-not-shown")
		}
		if !v.RejectOnFirstLayer && rejectReached {
			page := ""
			for _, st := range v.States {
				if st.State == core.StateRejectAll && len(st.Pages) > 0 {
					page = st.Pages[0]
				}
			}
			e.add("enforcement.reject-not-shown", "", map[string]string{"page": page},
				Evidence{ScanID: strp(e.scanID), State: strp(core.StateRejectAll), Page: strp(page)})
		}
	}
	for i := range v.States {
		st := &v.States[i]
		rule := stateRule(st.State)
		if rule == "" {
			continue
		}
		e.check(rule)
		// A held tag the browser fetched anyway is one cause with one fix (mark the tag), reported
		// once below under enforcement.unmarked-tag-fetched: its request is not counted again as
		// the state's leak.
		heldFetched := map[string]bool{}
		for _, h := range st.HeldUnmarked {
			if h.Requested {
				heldFetched[h.URL] = true
			}
		}
		var unattributed []observation
		for _, o := range observations(st) {
			if o.request != "" && heldFetched[o.request] {
				continue
			}
			cat, required, known := e.categoryOf(o.service, o.category)
			if !known {
				// Unclaimed third-party traffic where nothing is consented to: review it. In a
				// category state it may well belong to the accepted category.
				if o.thirdParty && !strings.HasPrefix(st.State, core.StateCategoryPrefix) {
					unattributed = append(unattributed, o)
				}
				continue
			}
			if allowedIn(st.State, cat, required) {
				continue
			}
			// One finding per rule, service and state, with the first observation as evidence.
			ev := Evidence{ScanID: strp(e.scanID), State: strp(st.State), Page: strp(o.page), Request: strp(o.request),
				Cookie: strp(o.cookie), Service: strp(o.service), Category: strp(cat)}
			state, _ := strings.CutPrefix(st.State, core.StateCategoryPrefix)
			e.addGrouped(o.service+"\x00"+st.State, rule, map[string]string{"service": e.serviceName(o.service), "category": cat,
				"what": o.what, "page": o.page, "state": state}, ev)
		}
		if len(unattributed) > 0 {
			first := unattributed[0]
			item := first.request
			if item == "" {
				item = first.cookie
			}
			params := map[string]string{"state": st.State, "count": strconv.Itoa(len(unattributed)), "item": item, "page": first.page}
			for _, o := range unattributed {
				e.addGrouped(st.State, "enforcement.unattributed", params,
					Evidence{ScanID: strp(e.scanID), State: strp(st.State), Page: strp(o.page), Request: strp(o.request), Cookie: strp(o.cookie)})
			}
		}
	}
	// enforcement.unmarked-tag-fetched: the runtime held an unmarked tag (its category was not
	// allowed), but the browser's preload scanner had already requested its URL: the vendor
	// received the visit before consent. One finding per tag, naming every state it happened in.
	heldStates := map[string][]string{}
	for _, st := range v.States {
		if stateRule(st.State) == "" {
			continue
		}
		for _, h := range st.HeldUnmarked {
			if !h.Requested {
				continue
			}
			if l := heldStates[h.URL]; len(l) == 0 || l[len(l)-1] != st.State {
				heldStates[h.URL] = append(l, st.State)
			}
		}
	}
	for _, st := range v.States {
		for _, h := range st.HeldUnmarked {
			if !h.Requested || len(heldStates[h.URL]) == 0 {
				continue
			}
			cat, _, _ := e.categoryOf(h.Service, h.Category)
			e.addGrouped(h.URL, "enforcement.unmarked-tag-fetched",
				map[string]string{"url": h.URL, "state": strings.Join(heldStates[h.URL], ", "), "page": h.Page, "what": "requested " + h.URL,
					"form": heldForm(h, cat)},
				Evidence{ScanID: strp(e.scanID), State: strp(st.State), Page: strp(h.Page), Request: strp(h.URL),
					Service: strp(h.Service), Category: strp(cat)})
		}
	}
	e.consentModeVerified(v)
	e.essentialThirdParties(v)
}

// serviceName is how a finding's detail names a service: its library name and slug when the
// library knows it ("Google Analytics (google-analytics)"), else the slug.
func (e *evaluation) serviceName(slug string) string {
	if e.lib != nil {
		if s, ok := e.lib.Service(slug); ok && s.Label != "" && s.Label != slug {
			return s.Label + " [" + slug + "]"
		}
	}
	return slug
}

// consentModeVerified is the verification side of consent.gcm-default: a Google tag that reads
// Consent Mode but found no default command behaves as if everything were granted.
func (e *evaluation) consentModeVerified(v *core.Verification) {
	if v.ConsentModeDefault {
		return
	}
	for _, st := range v.States {
		heldFetched := map[string]bool{}
		for _, h := range st.HeldUnmarked {
			heldFetched[h.URL] = h.Requested
		}
		for _, r := range st.Requests {
			// A tag the runtime held never ran: its fetch by the preload scanner read no
			// Consent Mode state (enforcement.unmarked-tag-fetched reports it).
			if !isConsentModeService(r.Service) || heldFetched[r.URL] {
				continue
			}
			e.add("consent.gcm-default", "", map[string]string{"what": fmt.Sprintf(
				"Google Consent Mode's default command was not in the dataLayer before %s was requested (%s, state %s): Google's tags assume consent.",
				r.Service, r.URL, st.State)},
				Evidence{ScanID: strp(e.scanID), State: strp(st.State), Page: strp(r.Page), Request: strp(r.URL), Service: strp(r.Service)})
			return
		}
	}
}

// heldForm is how a page marks the tag h by hand so that the browser does not fetch it: an
// iframe with its address in data-src, a script with type text/plain (the forms the runtime
// restores once category is allowed).
func heldForm(h core.HeldTag, category string) string {
	if category == "" {
		category = "..."
	}
	if h.Element == core.HeldIframe {
		return fmt.Sprintf(`<iframe data-src=%q data-category=%q ...> (its address in data-src, not src)`, h.URL, category)
	}
	return fmt.Sprintf(`<script type="text/plain" data-category=%q src=%q>`, category, h.URL)
}
