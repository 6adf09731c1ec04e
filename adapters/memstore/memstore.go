// Package memstore is an in-memory core.Store for tests of the core and the HTTP adapter. It
// is trusted because it passes the same contract suite (coretest.StoreContract) as the SQL
// stores. Nothing in production uses it.
package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/analytics"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/identity"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/usecases"
	"github.com/consentd/consentd/core/verifier"
)

// Store keeps everything in maps behind one mutex. A transaction holds the mutex for its
// whole run and restores a snapshot when it fails.
type Store struct {
	mu   *sync.Mutex
	d    *data
	inTx bool
}

var _ usecases.Store = (*Store)(nil)

type data struct {
	orgs     map[string]identity.Organization
	keys     map[string]identity.APIKey // by hash
	sites    map[string]core.Site
	banners  map[string]banner.Banner // by site
	cats     map[string]banner.Category
	svcs     map[string]banner.Service
	scans    map[string]scan.Scan
	consents []consent.ConsentRecord
	// proof holds the chains, snapshots and statistics of consent records (proof.go).
	proof proofData
	// teams holds the audit log, members and sessions (teams.go).
	teams teamsData
	// hooks holds webhook endpoints and deliveries (webhook.go).
	hooks hookData
	// gvl holds the GVL versions and their fetch states (gvl.go).
	gvl gvlData
	// verifiers are the verifier's credentials by token hash (verifier.go).
	verifiers map[string]verifier.Credential
	// experiments are the A/B tests by ID, as JSON (experiment.go).
	experiments map[string][]byte
	// analytics are the analytics' counters (analytics.go).
	analytics map[analytics.Key]*analytics.Counts
}

// New returns an empty store.
func New() *Store {
	return &Store{mu: &sync.Mutex{}, d: &data{
		orgs: map[string]identity.Organization{}, keys: map[string]identity.APIKey{}, sites: map[string]core.Site{},
		banners: map[string]banner.Banner{}, cats: map[string]banner.Category{}, svcs: map[string]banner.Service{},
		scans: map[string]scan.Scan{},
	}}
}

func (s *Store) lock() func() {
	if s.inTx {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

func (d *data) clone() *data {
	return &data{
		orgs: maps.Clone(d.orgs), keys: maps.Clone(d.keys), sites: maps.Clone(d.sites),
		banners: maps.Clone(d.banners), cats: maps.Clone(d.cats), svcs: maps.Clone(d.svcs),
		scans: maps.Clone(d.scans), consents: slices.Clone(d.consents), proof: d.proof.clone(), hooks: d.hooks.clone(),
		teams: d.teams.clone(), gvl: d.gvl.clone(), verifiers: maps.Clone(d.verifiers), analytics: cloneAnalytics(d.analytics),
		experiments: maps.Clone(d.experiments),
	}
}

// InTx implements core.Store.
func (s *Store) InTx(ctx context.Context, fn func(tx usecases.Store) error) error {
	if s.inTx {
		return fn(s)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	snap := s.d.clone()
	if err := fn(&Store{mu: s.mu, d: s.d, inTx: true}); err != nil {
		*s.d = *snap
		return err
	}
	return nil
}

// Ping implements core.Store.
func (s *Store) Ping(context.Context) error { return nil }

func notFound(what string) error { return core.Errorf(core.CodeNotFound, "%s not found", what) }
func conflict(what string) error { return core.Errorf(core.CodeConflict, "%s already exists", what) }

// CreateOrganization implements core.OrgStore.
func (s *Store) CreateOrganization(_ context.Context, o *identity.Organization) error {
	defer s.lock()()
	if _, ok := s.d.orgs[o.ID]; ok {
		return conflict("organization")
	}
	s.d.orgs[o.ID] = *o
	return nil
}

// CountOrganizations implements core.OrgStore.
func (s *Store) CountOrganizations(context.Context) (int, error) {
	defer s.lock()()
	return len(s.d.orgs), nil
}

// Organization implements core.OrgStore.
func (s *Store) Organization(_ context.Context, id string) (*identity.Organization, error) {
	defer s.lock()()
	o, ok := s.d.orgs[id]
	if !ok {
		return nil, notFound("organization")
	}
	return &o, nil
}

// Organizations implements core.OrgStore.
func (s *Store) Organizations(_ context.Context) ([]*identity.Organization, error) {
	defer s.lock()()
	out := make([]*identity.Organization, 0, len(s.d.orgs))
	for _, o := range s.d.orgs {
		out = append(out, &o)
	}
	slices.SortFunc(out, func(a, b *identity.Organization) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// CreateAPIKey implements core.OrgStore.
func (s *Store) CreateAPIKey(_ context.Context, k *identity.APIKey) error {
	defer s.lock()()
	if _, ok := s.d.keys[k.Hash]; ok {
		return conflict("api key")
	}
	if _, ok := s.d.orgs[k.OrganizationID]; !ok {
		return notFound("organization")
	}
	c := *k
	c.SiteIDs = slices.Clone(k.SiteIDs)
	s.d.keys[k.Hash] = c
	return nil
}

// APIKeyByHash implements core.OrgStore.
func (s *Store) APIKeyByHash(_ context.Context, hash string) (*identity.APIKey, error) {
	defer s.lock()()
	k, ok := s.d.keys[hash]
	if !ok {
		return nil, notFound("api key")
	}
	return &k, nil
}

// APIKeys implements core.OrgStore.
func (s *Store) APIKeys(_ context.Context, orgID string) ([]*identity.APIKey, error) {
	defer s.lock()()
	out := []*identity.APIKey{}
	for _, k := range s.d.keys {
		if k.OrganizationID == orgID {
			out = append(out, &k)
		}
	}
	slices.SortFunc(out, func(a, b *identity.APIKey) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// keyByID returns the hash under which a key is kept; "" when none matches.
func (s *Store) keyByID(orgID, id string) string {
	for h, k := range s.d.keys {
		if k.ID == id && (orgID == "" || k.OrganizationID == orgID) {
			return h
		}
	}
	return ""
}

// APIKey implements core.OrgStore.
func (s *Store) APIKey(_ context.Context, orgID, id string) (*identity.APIKey, error) {
	defer s.lock()()
	h := s.keyByID(orgID, id)
	if h == "" || orgID == "" {
		return nil, notFound("api key")
	}
	k := s.d.keys[h]
	return &k, nil
}

// DeleteAPIKey implements core.OrgStore.
func (s *Store) DeleteAPIKey(_ context.Context, orgID, id string) error {
	defer s.lock()()
	h := s.keyByID(orgID, id)
	if h == "" || orgID == "" {
		return notFound("api key")
	}
	delete(s.d.keys, h)
	return nil
}

// ExpireAPIKey implements core.OrgStore.
func (s *Store) ExpireAPIKey(_ context.Context, orgID, id string, at time.Time) error {
	defer s.lock()()
	h := s.keyByID(orgID, id)
	if h == "" || orgID == "" {
		return notFound("api key")
	}
	k := s.d.keys[h]
	k.ExpiresAt = &at
	s.d.keys[h] = k
	return nil
}

// TouchAPIKey implements core.OrgStore.
func (s *Store) TouchAPIKey(_ context.Context, id string, at time.Time) error {
	defer s.lock()()
	h := s.keyByID("", id)
	if h == "" {
		return notFound("api key")
	}
	k := s.d.keys[h]
	k.LastUsedAt = &at
	s.d.keys[h] = k
	return nil
}
