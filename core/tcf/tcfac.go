package tcf

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
)

// Google's Additional Consent providers (#45, docs/tcf.md): the ad technology providers outside
// the GVL that a site may work with under Google's Additional Consent mode. Google publishes
// them as a CSV (https://storage.googleapis.com/tcfac/additional-consent-providers.csv: provider
// id, name, privacy policy URL, domains). TCF.RefreshGVL fetches it beside the GVL, with the same
// freshness rules (its Cache-Control, conditional requests), and keeps every version it saw in
// the GVL's store under the key ACProvidersResource; the use cases read the latest through
// VendorLists.ACProviders: the layers name the site's providers and link their policies,
// CheckTCFSettings refuses an ID not on the list, and consent.tcf-atp-removed flags a provider
// Google removed after the site picked it.

// ACProvidersResource names Google's provider list among the resources RefreshGVL fetches, and
// is the key its versions are stored under (StoredGVL.Language).
const ACProvidersResource = "google-ac-providers"

// ACProvider is one of Google's Additional Consent providers.
type ACProvider struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	PolicyURL string `json:"policyUrl"`
}

// ACProviderList is Google's Additional Consent provider list. Shared when handed out by
// VendorLists: read only.
type ACProviderList struct {
	// Version is the version consentd stored it as (1, 2, … in the order the list changed;
	// Google's file carries no version of its own); 0 when read from a file.
	Version   int
	Providers map[int]ACProvider
}

// acColumns are the columns of Google's CSV, in order; a header is matched ignoring case,
// spaces and underscores ("provider_id" and "Provider ID" alike).
var acColumns = [...]string{"providerid", "providername", "policyurl", "domains"}

// ParseACProviders reads Google's provider list (CSV with a header row of provider id, name,
// policy URL and domains); a file in another form, an ID that is not a positive integer or
// listed twice, a provider without a name, or a list without providers is a validation error
// saying so.
func ParseACProviders(data []byte) (*ACProviderList, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = len(acColumns)
	head, err := r.Read()
	if err != nil {
		return nil, core.Wrap(core.CodeInvalid, err, "Google's Additional Consent provider list is not a CSV of provider id, name, policy URL and domains")
	}
	for i, h := range head {
		if strings.NewReplacer(" ", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(h))) != acColumns[i] {
			return nil, core.Errorf(core.CodeInvalid, "Google's Additional Consent provider list: column %d is %q, not the provider's %s", i+1, h, acColumns[i])
		}
	}
	l := &ACProviderList{Providers: map[int]ACProvider{}}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, core.Wrap(core.CodeInvalid, err, "Google's Additional Consent provider list")
		}
		id, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		line, _ := r.FieldPos(0)
		switch {
		case err != nil || id < 1:
			return nil, core.Errorf(core.CodeInvalid, "Google's Additional Consent provider list, line %d: %q is not a provider ID", line, rec[0])
		case l.Providers[id].ID != 0:
			return nil, core.Errorf(core.CodeInvalid, "Google's Additional Consent provider list, line %d: provider %d is listed twice", line, id)
		case strings.TrimSpace(rec[1]) == "":
			return nil, core.Errorf(core.CodeInvalid, "Google's Additional Consent provider list, line %d: provider %d has no name", line, id)
		}
		// The policy becomes a link in the publisher's page: only an http(s) URL is kept (a
		// javascript: one in a tampered or mistaken file would run there), else the provider is
		// shown without one.
		l.Providers[id] = ACProvider{ID: id, Name: strings.TrimSpace(rec[1]), PolicyURL: linkOrNone(rec[2])}
	}
	if len(l.Providers) == 0 {
		return nil, core.Errorf(core.CodeInvalid, "Google's Additional Consent provider list has no providers")
	}
	return l, nil
}

// ACProviders returns Google's provider list in use, nil when none is loaded (no source
// reached yet, or a file install without the list beside the GVL): the site's provider IDs are
// then checked for their form only and shown by ID.
func (t Ports) ACProviders(ctx context.Context) (*ACProviderList, error) {
	if t.Lists == nil {
		return nil, nil
	}
	l, err := t.Lists.ACProviders(ctx)
	if core.IsNotFound(err) {
		return nil, nil
	}
	return l, err
}

// checkATPs checks the site's Google providers: positive, distinct, at most MaxGoogleATPs, and
// each on Google's list ac when one is loaded.
func checkATPs(ids []int, ac *ACProviderList) error {
	if len(ids) > MaxGoogleATPs {
		return core.FieldErrorf("tcf.googleAtpIds", "must have at most %d providers", MaxGoogleATPs)
	}
	seen := map[int]bool{}
	for i, id := range ids {
		field := "tcf.googleAtpIds[" + strconv.Itoa(i) + "]"
		if id < 1 || seen[id] {
			return core.FieldErrorf(field, "%d is not a provider ID (a positive integer of Google's Additional Consent provider list) or is listed twice", id)
		}
		if _, ok := ac.lookup(id); ac != nil && !ok {
			return core.FieldErrorf(field, "unknown provider %d (not in Google's Additional Consent provider list in use)", id)
		}
		seen[id] = true
	}
	return nil
}

func (l *ACProviderList) lookup(id int) (ACProvider, bool) {
	if l == nil {
		return ACProvider{}, false
	}
	p, ok := l.Providers[id]
	return p, ok
}

// Has reports whether provider id is on the list.
func (l *ACProviderList) Has(id int) bool {
	_, ok := l.lookup(id)
	return ok
}

// siteACProviders returns the providers of ids that are on ac, by ID (empty without a list).
func siteACProviders(ids []int, ac *ACProviderList) map[int]ACProvider {
	out := make(map[int]ACProvider, len(ids))
	for _, id := range ids {
		if p, ok := ac.lookup(id); ok {
			out[id] = p
		}
	}
	return out
}
