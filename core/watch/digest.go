package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/scan"
)

// Limits of digests: a site's recipients, an unsubscribe token in a path.
const (
	MaxDigestEmails     = 10
	MaxUnsubscribeToken = 200
)

// DefaultDigestEvery is how often digests go out unless configured.
const DefaultDigestEvery = 24 * time.Hour

// DigestStore keeps when each site's last digest went out.
type DigestStore interface {
	// DigestSentAt returns when the site's last digest covered up to (zero for never).
	DigestSentAt(ctx context.Context, siteID string) (time.Time, error)
	// SetDigestSentAt records it.
	SetDigestSentAt(ctx context.Context, siteID string, at time.Time) error
}

// Digests are the email digests of what changed on sites.
type Digests struct {
	Store    Store
	AllSites core.SiteLister
	Mailer   core.Mailer
	// PublicURL is the base of the digests' links; every how often they go out.
	PublicURL string
	Every     time.Duration
	Clock     core.Clock
	Log       *slog.Logger
	Audit     core.Auditor
}

// Unsubscribe removes the recipient whose link token is token from its site's digest. It
// answers the address removed; not_found for an unknown or used token.
func (digests *Digests) Unsubscribe(ctx context.Context, token string) (string, error) {
	siteID, _, ok := strings.Cut(token, ".")
	if !ok || len(token) > MaxUnsubscribeToken {
		return "", core.Errorf(core.CodeNotFound, "unsubscribe link not found")
	}
	var email string
	err := digests.Store.InTx(ctx, func(tx Store) error {
		orgID, err := tx.SiteOrganization(ctx, siteID)
		if err != nil {
			return core.Errorf(core.CodeNotFound, "unsubscribe link not found")
		}
		s, err := tx.Site(ctx, orgID, siteID)
		if err != nil {
			return err
		}
		kept := []core.DigestRecipient{}
		for _, r := range s.DigestRecipients {
			if r.Token == token {
				email = r.Email
				continue
			}
			kept = append(kept, r)
		}
		if email == "" {
			return core.Errorf(core.CodeNotFound, "unsubscribe link not found")
		}
		old := core.SiteAudit(s)
		s.DigestRecipients = kept
		if err := tx.UpdateSite(ctx, s); err != nil {
			return err
		}
		// No key or member acts: the recipient, through the link of their email.
		by := core.WithActor(ctx, &core.Actor{Kind: core.ActorSystem, Name: "unsubscribe link of " + email})
		return digests.Audit.Record(by, tx, orgID, siteID, core.AuditSiteUpdate, siteID, old, core.SiteAudit(s))
	})
	return email, err
}

// Sends reports whether digests are emailed: false when the server has no mail settings
// (CONSENTD_SMTP_URL), when SendDigests sends nothing.
func (digests *Digests) Sends() bool { return digests.Mailer != nil }

// SendDigests emails each site's recipients what happened since its last digest: failed
// scans, scans that found changes, services auto-configure added. A site with nothing to
// report gets no email. It returns how many emails were sent; a site whose mail fails is
// retried at the next run (its window is not moved).
func (digests *Digests) SendDigests(ctx context.Context) (int, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return 0, err
	}
	if digests.Mailer == nil {
		return 0, nil
	}
	if digests.AllSites == nil {
		return 0, errors.New("digests: no site lister configured")
	}
	now := digests.Clock.Now()
	sent, after := 0, ""
	for {
		page, err := digests.AllSites.AllSites(ctx, after, scan.RescanPage)
		if err != nil {
			return sent, fmt.Errorf("digests: list sites: %w", err)
		}
		for _, s := range page {
			after = s.ID
			if len(s.DigestRecipients) == 0 {
				continue
			}
			n, err := digests.digestSite(ctx, s, now)
			sent += n
			if err != nil {
				digests.Log.Warn("digest not sent; retried at the next run", slog.String("site", s.ID), slog.Any("error", err))
			}
		}
		if len(page) < scan.RescanPage {
			return sent, nil
		}
	}
}

func (digests *Digests) digestSite(ctx context.Context, s *core.Site, now time.Time) (int, error) {
	since, err := digests.Store.DigestSentAt(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	if since.IsZero() {
		// The first digest covers the last period, and at least the last day, since the
		// site was created.
		since = now.Add(-max(digests.Every, 24*time.Hour))
		if s.CreatedAt.After(since) {
			since = s.CreatedAt
		}
	}
	scans, err := digests.Store.Scans(ctx, s.ID)
	if err != nil {
		return 0, err
	}
	var lines []string
	for i := len(scans) - 1; i >= 0; i-- {
		sc := scans[i]
		if sc.FinishedAt == nil || !sc.FinishedAt.After(since) || sc.FinishedAt.After(now) {
			continue
		}
		link := fmt.Sprintf("%s/sites/%s/scans/%s", digests.PublicURL, s.ID, sc.ID)
		switch {
		case sc.Status == scan.ScanFailed:
			lines = append(lines, fmt.Sprintf("- %s scan of %s failed: %s\n  %s", sc.Mode, sc.URL, core.Deref(sc.ErrorMessage), link))
		case sc.Changes != nil && sc.Changes.Count > 0:
			lines = append(lines, fmt.Sprintf("- %s scan of %s: %s\n%s  %s", sc.Mode, sc.URL, sc.Changes.Summary(), changeDetail(sc.Changes), link))
		}
		if len(sc.AutoConfigured) > 0 {
			lines = append(lines, fmt.Sprintf("- auto-configure added %s", strings.Join(sc.AutoConfigured, ", ")))
		}
	}
	if len(lines) == 0 {
		return 0, digests.Store.SetDigestSentAt(ctx, s.ID, now)
	}
	sent := 0
	for _, r := range s.DigestRecipients {
		unsub := digests.PublicURL + core.APIPrefix + "/unsubscribe/" + r.Token
		msg := core.EmailMessage{To: r.Email, Unsubscribe: unsub,
			Subject: fmt.Sprintf("consentd: what changed on %s", s.Name),
			Text: fmt.Sprintf("What consentd's scans saw on %s (%s) since %s:\n\n%s\n\n--\nYou get this digest because an administrator of %s added %s.\nUnsubscribe: %s\n",
				s.Name, s.URL, since.Format("2 Jan 2006 15:04 MST"), strings.Join(lines, "\n"), s.Name, r.Email, unsub)}
		if err := digests.Mailer.Send(ctx, msg); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, digests.Store.SetDigestSentAt(ctx, s.ID, now)
}

// changeDetail lists the services and cookies of a change, one a line, indented.
func changeDetail(c *scan.ScanChanges) string {
	var b strings.Builder
	for _, s := range c.ServicesAdded {
		fmt.Fprintf(&b, "    + service %s (%s)\n", s.Name, s.Category)
	}
	for _, s := range c.ServicesRemoved {
		fmt.Fprintf(&b, "    - service %s\n", s.Name)
	}
	for _, k := range slices.Concat(c.CookiesAdded, c.UnrecognizedCookiesAdded) {
		fmt.Fprintf(&b, "    + cookie %s (%s)\n", k.Name, k.Duration)
	}
	for _, k := range slices.Concat(c.CookiesRemoved, c.UnrecognizedCookiesRemoved) {
		fmt.Fprintf(&b, "    - cookie %s\n", k.Name)
	}
	return b.String()
}
