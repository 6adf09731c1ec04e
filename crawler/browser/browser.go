package browser

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// Options configure a pool of headless Chromium processes.
type Options struct {
	// Path is the Chromium (or Chrome) executable; empty looks for Executables on the PATH.
	Path string
	// Size is the number of browsers at most, each working one scan at a time (at least 1).
	Size int
	// UserAgent is the browsers' User-Agent; Chromium's own when empty.
	UserAgent string
}

// Pool is a pool of headless Chromium processes, started on first use and replaced when
// they crash or hang. It is safe for concurrent use.
type Pool struct {
	opts Options
	sem  chan struct{}

	mu     sync.Mutex
	idle   []*Browser
	all    map[*Browser]bool
	closed bool
}

// NewPool returns a pool; no browser starts before Acquire needs one.
func NewPool(opts Options) *Pool {
	if opts.Size < 1 {
		opts.Size = 1
	}
	return &Pool{opts: opts, sem: make(chan struct{}, opts.Size), all: map[*Browser]bool{}}
}

// MissingError is the failure of a pool without a Chromium executable; Why says what is
// missing ("none was found", "/path does not exist").
type MissingError struct{ Why string }

func (e *MissingError) Error() string { return "no Chromium executable: " + e.Why }

// ErrClosed is returned by Acquire once the pool is closed.
var ErrClosed = errors.New("the browser pool was shut down")

// LaunchError is the failure of a browser to start (it crashed or did not answer in time); a
// later attempt may succeed.
type LaunchError struct {
	Path string
	Err  error
}

func (e *LaunchError) Error() string {
	return fmt.Sprintf("the browser %s could not be started: %v", e.Path, e.Err)
}

func (e *LaunchError) Unwrap() error { return e.Err }

// executable finds the browser, or returns the *MissingError saying what is missing.
func (b *Pool) executable() (string, error) {
	if b.opts.Path != "" {
		if fi, err := os.Stat(b.opts.Path); err == nil && !fi.IsDir() {
			return b.opts.Path, nil
		}
		return "", &MissingError{Why: b.opts.Path + " does not exist"}
	}
	if p := Find(); p != "" {
		return p, nil
	}
	return "", &MissingError{Why: "none was found"}
}

// Executables are the names a browser is looked for under on the PATH, in order. Chromium's
// headless shell (Debian: chromium-headless-shell) comes first: the same Blink and V8 without
// the desktop browser's profile services, so that a page's fresh browser context costs about a
// third of the processor time (0.37 s against 1.28 s, ten contexts on two cores). Debian's
// /usr/bin/chromium-headless-shell is a shell script that runs the binary without exec, so the
// pool would hold the shell's PID, and its hang and crash guards kill by PID: the binary it
// runs comes first.
var Executables = []string{"/usr/lib/chromium/chromium-headless-shell", "chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the first of Executables that exists (a name with a slash as it is, the others
// on the PATH), or "".
func Find() string {
	for _, name := range Executables {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Available returns nil when the pool can start a browser, else the *MissingError Acquire
// would fail with.
func (b *Pool) Available() error {
	_, err := b.executable()
	return err
}

// Close stops every browser; scans still running fail.
func (b *Pool) Close() error {
	b.mu.Lock()
	b.closed = true
	all := make([]*Browser, 0, len(b.all))
	for br := range b.all {
		all = append(all, br)
	}
	b.all, b.idle = map[*Browser]bool{}, nil
	b.mu.Unlock()
	for _, br := range all {
		br.stop()
	}
	return nil
}

// PIDs are the pool's browser processes.
func (b *Pool) PIDs() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []int
	for br := range b.all {
		out = append(out, br.pid)
	}
	return out
}

// Acquire waits for a free slot and returns an idle browser or starts one: the caller has it
// alone until Release. It fails with the context's error, ErrClosed, a *MissingError or a
// *LaunchError.
func (b *Pool) Acquire(ctx context.Context) (*Browser, error) {
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		<-b.sem
		return nil, ErrClosed
	}
	for len(b.idle) > 0 {
		br := b.idle[len(b.idle)-1]
		b.idle = b.idle[:len(b.idle)-1]
		if br.Alive() {
			b.mu.Unlock()
			return br, nil
		}
		delete(b.all, br)
		go br.stop()
	}
	b.mu.Unlock()
	br, err := b.launch(ctx)
	if err != nil {
		<-b.sem
		return nil, err
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		br.stop()
		<-b.sem
		return nil, ErrClosed
	}
	b.all[br] = true
	b.mu.Unlock()
	return br, nil
}

// Release gives a browser back; a broken one (crashed, hung) is stopped and replaced on the
// next Acquire.
func (b *Pool) Release(br *Browser, broken bool) {
	b.mu.Lock()
	if broken || b.closed || !br.Alive() {
		delete(b.all, br)
		b.mu.Unlock()
		br.stop()
	} else {
		b.idle = append(b.idle, br)
		b.mu.Unlock()
	}
	<-b.sem
}

// Browser is one Chromium process. Its key signs the certificates its page proxies present for
// HTTPS hosts; the browser is started trusting that key's SPKI, and nothing else extra.
type Browser struct {
	ctx    context.Context // the chromedp browser context
	cancel func()
	dir    string
	key    *ecdsa.PrivateKey
	certs  sync.Map // host → *tls.Certificate
	deny   *http.Server
	pid    int
}

// Context is the chromedp browser context: a page's tab is a chromedp.NewContext of it.
func (br *Browser) Context() context.Context { return br.ctx }

// PID is the browser's process ID, 0 when unknown.
func (br *Browser) PID() int { return br.pid }

// Alive reports whether the browser process still runs.
func (br *Browser) Alive() bool { return br.ctx.Err() == nil }

// responsiveWithin bounds the check that a browser still answers.
const responsiveWithin = 5 * time.Second

// Responsive reports whether the browser answers a browser-level command in time.
func (br *Browser) Responsive() bool {
	ctx, cancel := context.WithTimeout(br.ctx, responsiveWithin)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{})
	return err == nil
}

func (br *Browser) stop() {
	br.cancel()
	_ = br.deny.Close()
	_ = os.RemoveAll(br.dir)
}

// launchTimeout bounds a browser's start.
const launchTimeout = 30 * time.Second

// launch starts Chromium so that nothing it does reaches the network by itself: its own proxy
// (for the default context, its background services) refuses every request, each scan page's
// browser context gets a proxy of its own (see Proxy), loopback is not exempted from
// proxying, and host names never resolve inside the browser.
func (b *Pool) launch(ctx context.Context) (*Browser, error) {
	path, err := b.executable()
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	deny := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "consentd: the browser has no network outside a scan's proxy", http.StatusForbidden)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = deny.Serve(ln) }()
	dir, err := os.MkdirTemp("", "consentd-chromium-")
	if err != nil {
		_ = deny.Close()
		return nil, err
	}
	// A scan's browser contexts are off the record, where Chromium blocks third-party cookies by
	// default; a visitor's default Chrome keeps them, and so must the scan (cookie_controls_mode
	// 0: allow), to list what a site's vendors store.
	if err := os.MkdirAll(filepath.Join(dir, "Default"), 0o700); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "Default", "Preferences"), []byte(`{"profile":{"cookie_controls_mode":0}}`), 0o600)
	}
	opts := append(Flags(),
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("proxy-server", "http://"+ln.Addr().String()),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("ignore-certificate-errors-spki-list", base64.StdEncoding.EncodeToString(sum[:])),
	)
	if b.opts.UserAgent != "" {
		opts = append(opts, chromedp.UserAgent(b.opts.UserAgent))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	br := &Browser{ctx: bctx, cancel: func() { bcancel(); acancel() }, dir: dir, key: key, deny: deny}
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(bctx) }()
	timer := time.NewTimer(launchTimeout)
	defer timer.Stop()
	select {
	case err = <-started:
	case <-timer.C:
		err = errors.New("no answer within " + launchTimeout.String())
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		br.stop()
		return nil, &LaunchError{Path: path, Err: err}
	}
	if c := chromedp.FromContext(bctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		br.pid = c.Browser.Process().Pid
	}
	return br, nil
}

// Flags are the launch options every headless Chromium of consentd starts with, the scan's
// pool and the tests that drive a browser alike: chromedp's defaults, headless and without the
// sandbox (containers run it as root), no GPU, no QUIC, no first-run or background traffic of
// Chromium's own, and one renderer per page, not one more per cross-site frame (a scan reads
// what pages load and store, and each page or test tab already has a browser context of its
// own; a process started for every embedded video or ad frame is slow on two cores). Each call returns a fresh slice, for the caller to append its own.
func Flags() []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.Flag("disable-site-isolation-trials", true),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,IsolateOrigins,site-per-process,OptimizationHints,MediaRouter"),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
	)
}
