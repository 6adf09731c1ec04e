package sitecrawler

import (
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler"
)

// Verification maps an engine verification to core's; nil stays nil.
func Verification(v *crawler.Verification) *core.Verification {
	if v == nil {
		return nil
	}
	out := &core.Verification{Banner: core.BannerNone, ConsentModeDefault: v.ConsentModeDefault, Unreached: []core.UnreachedState{},
		RejectOnFirstLayer: v.RejectOnFirstLayer, ReopenButton: v.ReopenButton, States: make([]core.VerifiedState, 0, len(v.States))}
	if v.Banner == crawler.BannerConsentd {
		out.Banner = core.BannerConsentd
	}
	if v.ProjectKey != "" {
		k := v.ProjectKey
		out.ProjectKey = &k
	}
	for _, u := range v.Unreached {
		out.Unreached = append(out.Unreached, core.UnreachedState{State: u.State, Reason: u.Reason})
	}
	for _, s := range v.States {
		st := core.VerifiedState{State: s.State, Pages: orEmpty(s.Pages), Requests: make([]core.VerifiedRequest, 0, len(s.Requests)),
			Cookies: storage(s.Cookies), Storage: storage(s.Storage), HeldUnmarked: make([]core.HeldTag, 0, len(s.HeldUnmarked))}
		for _, r := range capped(s.Requests) {
			st.Requests = append(st.Requests, core.VerifiedRequest{URL: r.URL, Page: r.Page, Service: r.Service, Category: r.Category,
				Type: r.Type, ThirdParty: r.ThirdParty})
		}
		for _, h := range capped(s.HeldUnmarked) {
			st.HeldUnmarked = append(st.HeldUnmarked, core.HeldTag{URL: h.URL, Page: h.Page, Service: h.Service, Category: h.Category,
				Requested: h.Requested})
		}
		out.States = append(out.States, st)
	}
	return out
}

func storage(in []crawler.VerifiedStorage) []core.VerifiedStorage {
	out := make([]core.VerifiedStorage, 0, len(in))
	for _, s := range capped(in) {
		kind := core.StorageCookie
		switch s.Kind {
		case crawler.StorageLocal:
			kind = core.StorageLocal
		case crawler.StorageSession:
			kind = core.StorageSession
		}
		out = append(out, core.VerifiedStorage{Kind: kind, Name: s.Name, Domain: s.Domain, Page: s.Page, Service: s.Service,
			Category: s.Category, ThirdParty: s.ThirdParty})
	}
	return out
}

// capped keeps at most core.MaxVerifiedItems items (the engine is given the same limit).
func capped[T any](in []T) []T {
	if len(in) > core.MaxVerifiedItems {
		return in[:core.MaxVerifiedItems]
	}
	return in
}
