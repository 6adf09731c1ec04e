package core_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/identity"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestAPIKeyRevokeIsImmediate(t *testing.T) {
	m, _, _ := newCore(t)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	k, plain, err := m.Orgs.CreateAPIKey(ctx, org.ID, "ci", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := m.Orgs.Authenticate(ctx, plain); err != nil || got != org.ID {
		t.Fatalf("new key: %q %v", got, err)
	}
	if !strings.HasPrefix(plain, k.Prefix) || len(k.Prefix) != 11 {
		t.Fatalf("prefix %q of %q", k.Prefix, plain)
	}
	other, _ := m.Orgs.CreateOrganization(ctx, "other")
	wantCode(t, m.Orgs.RevokeAPIKey(ctx, other.ID, k.ID), core.CodeNotFound)
	if err := m.Orgs.RevokeAPIKey(ctx, org.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	_, err = m.Orgs.Authenticate(ctx, plain)
	wantCode(t, err, core.CodeUnauthorized)
}

func TestAPIKeyRotateGrace(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)}
	m, _, _ := newCoreAt(t, c.now)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	old, oldPlain, err := m.Orgs.CreateAPIKey(ctx, org.ID, "ci", "")
	if err != nil {
		t.Fatal(err)
	}
	grace := time.Hour
	nk, newPlain, prev, err := m.Orgs.RotateAPIKey(ctx, org.ID, old.ID, &grace)
	if err != nil {
		t.Fatal(err)
	}
	if nk.Name != "ci" || nk.ID == old.ID || newPlain == oldPlain || prev.ExpiresAt == nil || !prev.ExpiresAt.Equal(c.now().Add(time.Hour)) {
		t.Fatalf("rotate: new %+v, previous %+v", nk, prev)
	}
	c.add(59 * time.Minute)
	for _, k := range []string{oldPlain, newPlain} {
		if _, err := m.Orgs.Authenticate(ctx, k); err != nil {
			t.Fatalf("within the grace period: %v", err)
		}
	}
	c.add(time.Minute)
	_, err = m.Orgs.Authenticate(ctx, oldPlain)
	wantCode(t, err, core.CodeUnauthorized)
	if _, err := m.Orgs.Authenticate(ctx, newPlain); err != nil {
		t.Fatalf("successor after the grace period: %v", err)
	}
	// A second rotation never lengthens a grace period already running.
	long := 48 * time.Hour
	_, _, prev2, err := m.Orgs.RotateAPIKey(ctx, org.ID, old.ID, &long)
	if err != nil || !prev2.ExpiresAt.Equal(*prev.ExpiresAt) {
		t.Fatalf("re-rotating an expired key: %+v %v", prev2, err)
	}
	for _, g := range []time.Duration{-time.Second, identity.MaxRotateGrace + time.Second} {
		_, _, _, err := m.Orgs.RotateAPIKey(ctx, org.ID, nk.ID, &g)
		wantCode(t, err, core.CodeInvalid)
	}
	_, _, _, err = m.Orgs.RotateAPIKey(ctx, org.ID, m.newID(), nil)
	wantCode(t, err, core.CodeNotFound)
}

func TestAPIKeyLastUsedOncePerMinute(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)}
	m, _, _ := newCoreAt(t, c.now)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	k, plain, _ := m.Orgs.CreateAPIKey(ctx, org.ID, "ci", "")
	lastUsed := func() *time.Time {
		got, err := m.store.APIKey(ctx, org.ID, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.LastUsedAt
	}
	if lastUsed() != nil {
		t.Fatal("unused key has a last use")
	}
	first := c.now()
	m.Orgs.Authenticate(ctx, plain) //nolint:errcheck // checked through the store
	c.add(59 * time.Second)
	m.Orgs.Authenticate(ctx, plain) //nolint:errcheck // checked through the store
	if got := lastUsed(); got == nil || !got.Equal(first) {
		t.Fatalf("last use %v, want %v (not rewritten within a minute)", got, first)
	}
	c.add(time.Second)
	m.Orgs.Authenticate(ctx, plain) //nolint:errcheck // checked through the store
	if got := lastUsed(); got == nil || !got.Equal(first.Add(time.Minute)) {
		t.Fatalf("last use %v, want a minute later", got)
	}
}

func TestAPIKeyNameLimit(t *testing.T) {
	m, _, _ := newCore(t)
	org, _ := m.Orgs.CreateOrganization(ctx, "acme")
	_, _, err := m.Orgs.CreateAPIKey(ctx, org.ID, strings.Repeat("n", identity.MaxAPIKeyName+1), "")
	wantCode(t, err, core.CodeInvalid)
	if _, _, err := m.Orgs.CreateAPIKey(ctx, org.ID, strings.Repeat("n", identity.MaxAPIKeyName), ""); err != nil {
		t.Fatal(err)
	}
}
