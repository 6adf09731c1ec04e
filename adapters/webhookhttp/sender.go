// Package webhookhttp sends webhook deliveries over HTTP, signed as the Standard Webhooks
// specification says (webhook-id, webhook-timestamp and webhook-signature headers,
// HMAC-SHA256 with the endpoint's whsec_ secret) by the specification's reference library, and
// only to public addresses unless the operator allows private ones: the one address rule
// (core.SpecialAddress) that also validates endpoints and guards the scanner, checked on the
// address actually connected to, after DNS resolution.
package webhookhttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/event"
	"github.com/consentd/consentd/core/watch"
)

// Sender implements core.WebhookSender.
type Sender struct {
	client    *http.Client
	userAgent string
}

var _ watch.WebhookSender = (*Sender)(nil)

// New returns a sender; allowPrivate lets it reach loopback and private addresses
// (CONSENTD_WEBHOOK_ALLOW_PRIVATE). userAgent names consentd and its version.
func New(allowPrivate bool, userAgent string) *Sender {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var ips []netip.Addr
		if ip, literal, err := core.HostAddress(host); err != nil {
			return nil, err
		} else if literal {
			ips = []netip.Addr{ip}
		} else if ips, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		var firstErr error
		for _, ip := range ips {
			if reason := core.SpecialAddress(ip); reason != "" && !allowPrivate {
				if firstErr == nil {
					firstErr = fmt.Errorf("refused to deliver to %s (%s): %s address (the operator may allow it with CONSENTD_WEBHOOK_ALLOW_PRIVATE=true)", host, ip.Unmap(), reason)
				}
				continue
			}
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return conn, nil
			}
			firstErr = err
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s has no address", host)
		}
		return nil, firstErr
	}
	tr := &http.Transport{DialContext: dial, Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second, ResponseHeaderTimeout: event.WebhookTimeout}
	return &Sender{userAgent: userAgent, client: &http.Client{Transport: tr,
		// A redirect is an answer, not a new target: receivers give their final URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Send implements core.WebhookSender.
func (s *Sender) Send(ctx context.Context, r watch.WebhookRequest) (*watch.WebhookResponse, error) {
	wh, err := standardwebhooks.NewWebhook(r.Secret)
	if err != nil {
		return nil, fmt.Errorf("the endpoint's secret is unusable: %w", err)
	}
	sig, err := wh.Sign(r.ID, r.Timestamp, r.Payload)
	if err != nil {
		return nil, fmt.Errorf("signing: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set(standardwebhooks.HeaderWebhookID, r.ID)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(r.Timestamp.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
	res, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
	text := string(body)
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "�")
	}
	return &watch.WebhookResponse{StatusCode: res.StatusCode, Body: text}, nil
}
