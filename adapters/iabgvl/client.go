package iabgvl

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pquerna/cachecontrol"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/tcf"
)

// DefaultBaseURL is where the IAB publishes the GVL v3 and its translations.
const DefaultBaseURL = "https://vendor-list.consensu.org/v3/"

// DefaultACProvidersURL is where Google publishes its Additional Consent provider list
// (tcf.ACProvidersResource).
const DefaultACProvidersURL = "https://storage.googleapis.com/tcfac/additional-consent-providers.csv"

// maxResource bounds a resource's size: the GVL is about 1 MB, growing.
const maxResource = 64 << 20

// Client fetches the GVL and its translations from the IAB's server, and Google's Additional
// Consent provider list from Google's, compressed (gzip, which
// Go's transport asks for and decodes), conditionally on the last answer's validators, and
// says until when each answer is fresh per its Cache-Control (RFC 9111 freshness computed by
// github.com/pquerna/cachecontrol), so that core asks again only once it has expired, as the
// IAB requires of server-side applications.
type Client struct {
	base  string
	acURL string
	http  *http.Client
	ua    string
}

var _ tcf.GVLSource = (*Client)(nil)

// NewClient returns a client of the server at base (DefaultBaseURL when ""), through hc
// (http.DefaultClient when nil); userAgent names consentd in its requests.
func NewClient(base string, hc *http.Client, userAgent string) *Client {
	if base == "" {
		base = DefaultBaseURL
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(base, "/") + "/", acURL: DefaultACProvidersURL, http: hc, ua: userAgent}
}

// WithACProvidersURL returns c fetching Google's provider list from u instead of
// DefaultACProvidersURL (tests).
func (c *Client) WithACProvidersURL(u string) *Client {
	d := *c
	d.acURL = u
	return &d
}

// FetchGVLResource implements core.GVLSource: a 404 (or 403, which the IAB's and Google's
// storage answer for a file they do not have) is not_found; any other failure is an error for the job to
// retry.
func (c *Client) FetchGVLResource(ctx context.Context, name string, prev *tcf.GVLFetch) (*tcf.GVLFetch, error) {
	url, accept := c.base+name+".json", "application/json"
	if name == tcf.ACProvidersResource {
		url, accept = c.acURL, "text/csv"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	if c.ua != "" {
		req.Header.Set("User-Agent", c.ua)
	}
	if prev != nil {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("TCF list %s: %w", name, err)
	}
	defer res.Body.Close()
	f := &tcf.GVLFetch{ETag: res.Header.Get("ETag"), LastModified: res.Header.Get("Last-Modified"), Expires: freshUntil(req, res)}
	switch {
	case res.StatusCode == http.StatusNotModified:
		f.NotModified = true
		return f, nil
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusForbidden:
		return nil, core.Errorf(core.CodeNotFound, "%s is not published (HTTP %d)", url, res.StatusCode)
	case res.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("TCF list %s: HTTP %s", name, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResource+1))
	if err != nil {
		return nil, fmt.Errorf("TCF list %s: %w", name, err)
	}
	if len(body) > maxResource {
		return nil, fmt.Errorf("TCF list %s: larger than %d bytes", name, maxResource)
	}
	f.Body = body
	return f, nil
}

// freshUntil is until when res may be reused without asking again: its Cache-Control
// max-age (or Expires), as a shared cache computes it; zero when it may not be stored.
func freshUntil(req *http.Request, res *http.Response) time.Time {
	status := res.StatusCode
	if status == http.StatusNotModified {
		status = http.StatusOK // a 304 refreshes the stored answer's freshness with its headers
	}
	reasons, expires, err := cachecontrol.CachableResponse(req, &http.Response{StatusCode: status, Header: res.Header}, cachecontrol.Options{})
	if err != nil || len(reasons) > 0 {
		return time.Time{}
	}
	return expires.UTC()
}
