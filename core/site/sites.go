package site

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"net/mail"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/watch"
)

// SiteInput creates or changes a site. Nil fields are left unchanged on update.
type SiteInput struct {
	Name *string
	URL  *string
	// ConsentRetentionDays sets (1 to MaxConsentRetentionDays) or, when Null, turns off the
	// removal of old consent records.
	ConsentRetentionDays banner.Optional[int]
	// ScanSchedule, VerifySchedule and AutoConfigure: see Site.
	ScanSchedule   *string
	VerifySchedule *string
	AutoConfigure  *bool
	// DigestEmails replaces the digest's recipients (nil leaves them).
	DigestEmails []string
}

// updatePermissions are what changing a site with in needs: retention to set how long its
// proof is kept (consentRetentionDays: a shorter retention removes consent records and audit
// entries), configure for every other setting, and configure for a change of nothing.
// Retention alone needs only retention, so the privacy role may set it.
func (in SiteInput) updatePermissions() []core.Permission {
	rest := in
	rest.ConsentRetentionDays = banner.Optional[int]{}
	if !in.ConsentRetentionDays.Set {
		return []core.Permission{core.PermConfigure}
	}
	if reflect.ValueOf(rest).IsZero() {
		return []core.Permission{core.PermRetention}
	}
	return []core.Permission{core.PermConfigure, core.PermRetention}
}

func (in SiteInput) validate(create bool) error {
	if create && (in.Name == nil || in.URL == nil) {
		return core.Errorf(core.CodeInvalid, "name and url are required")
	}
	if in.Name != nil {
		if n := utf8.RuneCountInString(strings.TrimSpace(*in.Name)); n < 1 || n > core.MaxSiteName {
			return core.FieldErrorf("name", "must be 1 to %d characters", core.MaxSiteName)
		}
		if err := core.CheckText("name", *in.Name); err != nil {
			return err
		}
	}
	if in.URL != nil {
		if err := core.ValidateHTTPURL("url", *in.URL); err != nil {
			return err
		}
	}
	if r := in.ConsentRetentionDays; r.Set && !r.Null && (r.Value < 1 || r.Value > core.MaxConsentRetentionDays) {
		return core.FieldErrorf("consentRetentionDays", "must be 1 to %d, or null for no removal", core.MaxConsentRetentionDays)
	}
	return validateSchedules(in)
}

// CreateSite creates a site with its banner and the default categories, in one transaction.
func (sites *Sites) CreateSite(ctx context.Context, orgID string, in SiteInput) (*core.Site, error) {
	if err := core.Authorize(ctx, core.PermSites, orgID, ""); err != nil {
		return nil, err
	}
	if in.ConsentRetentionDays.Set {
		if err := core.Authorize(ctx, core.PermRetention, orgID, ""); err != nil {
			return nil, err
		}
	}
	if err := in.validate(true); err != nil {
		return nil, err
	}
	now := sites.Clock.Now()
	s := &core.Site{
		ID: sites.NewID(), OrganizationID: orgID, Name: strings.TrimSpace(*in.Name), URL: *in.URL,
		ProjectKey: core.NewProjectKey(), CreatedAt: now, UpdatedAt: now, ScanSchedule: scan.ScheduleDefault, VerifySchedule: scan.ScheduleOff,
	}
	if err := in.applySchedules(s); err != nil {
		return nil, err
	}
	if r := in.ConsentRetentionDays; r.Set && !r.Null {
		s.ConsentRetentionDays = &r.Value
	}
	err := sites.Store.InTx(ctx, func(tx Store) error {
		// The organization must exist: the API's caller is authenticated as one, but the
		// operator's CLI names it by hand.
		if _, err := tx.Organization(ctx, orgID); err != nil {
			return err
		}
		if err := tx.CreateSite(ctx, s); err != nil {
			return err
		}
		if err := tx.CreateBanner(ctx, banner.NewBanner(sites.NewID(), s.ID, now)); err != nil {
			return err
		}
		for _, d := range banner.DefaultCategories {
			c := d
			c.ID, c.SiteID, c.IsDefault, c.CreatedAt, c.UpdatedAt = sites.NewID(), s.ID, true, now, now
			c.NameTranslations, c.DescriptionTranslations = map[string]string{}, map[string]string{}
			if err := tx.CreateCategory(ctx, &c); err != nil {
				return err
			}
		}
		return sites.Audit.Record(ctx, tx, orgID, s.ID, core.AuditSiteCreate, s.ID, nil, core.SiteAudit(s))
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Sites lists the organization's sites (only its own for a key limited to some sites).
func (sites *Sites) Sites(ctx context.Context, orgID string) ([]*core.Site, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, ""); err != nil {
		return nil, err
	}
	all, err := sites.Store.Sites(ctx, orgID)
	a := core.ActorOf(ctx)
	if err != nil || a == nil || !a.Scoped() {
		return all, err
	}
	out := make([]*core.Site, 0, len(all))
	for _, s := range all {
		if a.CanSite(s.ID) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Site returns a site of the organization.
func (sites *Sites) Site(ctx context.Context, orgID, id string) (*core.Site, error) {
	if err := core.Authorize(ctx, core.PermRead, orgID, id); err != nil {
		return nil, err
	}
	return sites.Store.Site(ctx, orgID, id)
}

// UpdateSite changes a site's settings (configure) and how long its proof is kept
// (retention): see SiteInput.updatePermissions.
func (sites *Sites) UpdateSite(ctx context.Context, orgID, id string, in SiteInput) (*core.Site, error) {
	for _, p := range in.updatePermissions() {
		if err := core.Authorize(ctx, p, orgID, id); err != nil {
			return nil, err
		}
	}
	if err := in.validate(false); err != nil {
		return nil, err
	}
	var s *core.Site
	err := sites.Store.InTx(ctx, func(tx Store) error {
		var err error
		if s, err = tx.Site(ctx, orgID, id); err != nil {
			return err
		}
		old := core.Snapshot(core.SiteAudit(s))
		if in.Name != nil {
			s.Name = strings.TrimSpace(*in.Name)
		}
		if in.URL != nil {
			s.URL = *in.URL
		}
		if err := in.applySchedules(s); err != nil {
			return err
		}
		if r := in.ConsentRetentionDays; r.Set {
			s.ConsentRetentionDays = nil
			if !r.Null {
				s.ConsentRetentionDays = &r.Value
			}
		}
		s.UpdatedAt = sites.Clock.Now()
		if err := tx.UpdateSite(ctx, s); err != nil {
			return err
		}
		return sites.Events.ChangedIn(ctx, tx, s.ID, "site", sites.Audit.Record(ctx, tx, orgID, s.ID, core.AuditSiteUpdate, s.ID, old, core.SiteAudit(s)))
	})
	return s, err
}

// DeleteSite removes a site and everything that belongs to it.
func (sites *Sites) DeleteSite(ctx context.Context, orgID, id string) error {
	if err := core.Authorize(ctx, core.PermSites, orgID, id); err != nil {
		return err
	}
	defer sites.Views.Forget(id)
	return sites.Store.InTx(ctx, func(tx Store) error {
		old, err := tx.Site(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteSite(ctx, id); err != nil {
			return err
		}
		return sites.Audit.Record(ctx, tx, orgID, id, core.AuditSiteDelete, id, core.SiteAudit(old), nil)
	})
}

// Sites are the use cases of sites.
type Sites struct {
	Store  Store
	Clock  core.Clock
	NewID  func() string
	Audit  core.Auditor
	Events *event.Publisher
	Views  *banner.PublicViews
}

func newDigestToken(siteID string) string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return siteID + "." + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// digestRecipients turns the addresses asked for into recipients, keeping the token of an
// address already subscribed.
func digestRecipients(siteID string, old []core.DigestRecipient, emails []string) ([]core.DigestRecipient, error) {
	if len(emails) > watch.MaxDigestEmails {
		return nil, core.FieldErrorf("digestEmails", "at most %d addresses", watch.MaxDigestEmails)
	}
	out := []core.DigestRecipient{}
	seen := map[string]bool{}
	for _, e := range emails {
		a, err := mail.ParseAddress(e)
		if err != nil || a.Name != "" || a.Address != strings.TrimSpace(e) || len(e) > 254 {
			return nil, core.FieldErrorf("digestEmails", "%q is not an email address", e)
		}
		key := strings.ToLower(a.Address)
		if seen[key] {
			continue
		}
		seen[key] = true
		r := core.DigestRecipient{Email: a.Address, Token: newDigestToken(siteID)}
		for _, o := range old {
			if strings.EqualFold(o.Email, a.Address) {
				r.Token = o.Token
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func (in SiteInput) applySchedules(s *core.Site) error {
	if in.DigestEmails != nil {
		rs, err := digestRecipients(s.ID, s.DigestRecipients, in.DigestEmails)
		if err != nil {
			return err
		}
		s.DigestRecipients = rs
	}
	if in.ScanSchedule != nil {
		s.ScanSchedule = *in.ScanSchedule
	}
	if in.VerifySchedule != nil {
		s.VerifySchedule = *in.VerifySchedule
	}
	if in.AutoConfigure != nil {
		s.AutoConfigure = *in.AutoConfigure
	}
	return nil
}

func validateSchedules(in SiteInput) error {
	if in.ScanSchedule != nil && !slices.Contains(scan.ScanSchedules(), *in.ScanSchedule) {
		return core.FieldErrorf("scanSchedule", "must be one of %s", strings.Join(scan.ScanSchedules(), ", "))
	}
	if in.VerifySchedule != nil && !slices.Contains(scan.VerifySchedules(), *in.VerifySchedule) {
		return core.FieldErrorf("verifySchedule", "must be one of %s", strings.Join(scan.VerifySchedules(), ", "))
	}
	if in.DigestEmails != nil {
		if _, err := digestRecipients("", nil, in.DigestEmails); err != nil {
			return err
		}
	}
	return nil
}
