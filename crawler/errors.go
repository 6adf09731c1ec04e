package crawler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/crawler/netguard"
	"github.com/gocolly/colly/v2"
)

// statusError records a 4xx/5xx page and says why it stops the scan if it is a start page.
func (s *scan) statusError(u string, f *fetched) error {
	status := f.status
	text := fmt.Sprintf("%d %s", status, http.StatusText(status))
	botWall := status == http.StatusForbidden || status == http.StatusTooManyRequests ||
		(status == http.StatusServiceUnavailable && f.header.Get("Cf-Mitigated") != "")
	if botWall {
		s.pageError(u, status, "answered "+text+": blocked as a bot")
		return &Error{Kind: KindBotWall, Temporary: status != http.StatusForbidden,
			Message: fmt.Sprintf("start page %s answered %s: the site blocks automated clients (bot protection)", u, text)}
	}
	s.pageError(u, status, "answered "+text)
	return &Error{Kind: KindHTTPStatus, Temporary: status >= 500,
		Message: fmt.Sprintf("start page %s answered %s", u, text)}
}

// startError wraps a transport error of a start page as a scan error.
func (s *scan) startError(u string, err error, msg string) error {
	var refused *netguard.RefusedError
	if errors.As(err, &refused) {
		return &Error{Kind: KindRefused, Message: refused.Error(), Err: err}
	}
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	return &Error{Kind: KindFetch, Temporary: isTemporaryNet(err), Message: fmt.Sprintf("start page %s could not be fetched: %s", u, msg), Err: err}
}

// fetchMessage turns a transport error into a short message without Go's wrapping noise.
func fetchMessage(err error) string {
	if errors.Is(err, colly.ErrRobotsTxtBlocked) {
		return "disallowed by robots.txt"
	}
	return netguard.Message(err)
}

func (s *scan) setFatal(err error) {
	s.mu.Lock()
	if s.fatal == nil {
		s.fatal = err
	}
	s.mu.Unlock()
	s.cancel()
}

func (s *scan) fatalErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fatal
}

func (s *scan) pageError(u string, status int, msg string) {
	s.mu.Lock()
	s.errs = append(s.errs, PageError{URL: u, Status: status, Message: msg})
	s.mu.Unlock()
}

// noBrowser is the failure of a deep scan or a verification without Chromium; why says what
// is missing.
func noBrowser(why string) *Error {
	return &Error{Kind: KindNoBrowser, Message: "a deep scan or a verification needs Chromium, and " + why +
		": install it (Debian and Ubuntu: apt-get install chromium-headless-shell) or set CONSENTD_CHROMIUM_PATH to its executable"}
}

// browserError is the scan error of a browser pool's failure: no Chromium (KindNoBrowser), a
// pool shut down or a browser that did not start (KindBrowser, temporary). Other errors (the
// scan's context) are returned as they are.
func browserError(err error) error {
	var missing *browser.MissingError
	var launch *browser.LaunchError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &missing):
		return noBrowser(missing.Why)
	case errors.Is(err, browser.ErrClosed):
		return &Error{Kind: KindBrowser, Temporary: true, Message: "the scan's browser was shut down"}
	case errors.As(err, &launch):
		return &Error{Kind: KindBrowser, Temporary: true, Err: launch.Err, Message: launch.Error()}
	}
	return err
}

// isTemporaryNet classifies transport errors.
func isTemporaryNet(err error) bool {
	var refused *netguard.RefusedError
	if errors.As(err, &refused) {
		return false
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return !dnsErr.IsNotFound
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return true
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return false
}

// loadError is why a script the page asks for did not load: the transport's error when no
// answer came, the status when it answered an error, else "".
func loadError(status int, err string) string {
	switch {
	case status == 0:
		return err
	case status >= 400:
		return fmt.Sprintf("answered %d %s", status, http.StatusText(status))
	}
	return ""
}
