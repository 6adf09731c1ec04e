package core

import "context"

// EmailMessage is one email.
type EmailMessage struct {
	To      string
	Subject string
	Text    string
	// HTML, when set, is the same content as HTML, sent beside Text (multipart/alternative).
	HTML string
	// Unsubscribe is the URL of the List-Unsubscribe header (RFC 2369, one-click per RFC 8058).
	Unsubscribe string
}

// Mailer sends email (SMTP when CONSENTD_SMTP_URL is set).
type Mailer interface {
	// Send delivers msg; an error says it was not accepted.
	Send(ctx context.Context, msg EmailMessage) error
}
