package identity

import (
	"context"
	"fmt"
	"html"

	"github.com/consentd/consentd/core"
)

// MailInvitation emails link, the invitation Invite made for email to join the organization
// with role, to that address, in plain text and HTML. It answers false, nil without a mailer
// (the link is then only shown to copy); an error says the mail was not accepted, and the
// invitation stays valid. Only owners manage members.
func (users *Users) MailInvitation(ctx context.Context, orgID, email string, role core.Role, link string) (bool, error) {
	if err := core.Authorize(ctx, core.PermMembers, orgID, ""); err != nil {
		return false, err
	}
	if users.Mailer == nil {
		return false, nil
	}
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return false, err
	}
	org, err := users.Store.Organization(ctx, orgID)
	if err != nil {
		return false, err
	}
	by := "An owner"
	if a := core.ActorOf(ctx); a != nil && a.Kind == core.ActorUser && a.Name != "" {
		by = a.Name
	}
	days := int(InviteTTL.Hours() / 24)
	text := fmt.Sprintf("%s invites you to join %s on consentd as %s.\n\nAccept the invitation: %s\n\n"+
		"The link works once, for %d days. If you did not expect this invitation, ignore this email.\n",
		by, org.Name, role, link, days)
	e := html.EscapeString
	body := fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Join %[2]s on consentd</title></head>
<body style="font-family:sans-serif;line-height:1.5;color:#1a1a1a">
<p>%[1]s invites you to join <strong>%[2]s</strong> on consentd as <strong>%[3]s</strong>.</p>
<p><a href="%[4]s" style="color:#0b57d0">Accept the invitation</a></p>
<p>Or copy this address into your browser: %[4]s</p>
<p style="color:#555">The link works once, for %[5]d days. If you did not expect this invitation, ignore this email.</p>
</body></html>
`, e(by), e(org.Name), e(string(role)), e(link), days)
	msg := core.EmailMessage{To: email, Subject: fmt.Sprintf("Join %s on consentd", org.Name), Text: text, HTML: body}
	if err := users.Mailer.Send(ctx, msg); err != nil {
		return false, fmt.Errorf("mail invitation: %w", err)
	}
	return true, nil
}
