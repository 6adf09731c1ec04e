// Package crawlertest holds what the crawler's tests and the command's tests share: the replay
// server of recorded sites (testdata/sites, testdata/deep), certificates for serving vendor hosts
// over TLS, and the scoring of deep scans against a site's expected file.
package crawlertest

import (
	"bufio"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// SiteConfig is testdata/sites/<name>/site.json: how to scan a recorded site and how the
// replay server behaves beyond serving files.
type SiteConfig struct {
	Start        []string          `json:"start"`
	MaxPages     int               `json:"maxPages"`
	MaxDepth     int               `json:"maxDepth"`
	MaxBodyBytes int64             `json:"maxBodyBytes"`
	Password     string            `json:"password"`     // sent by the scan
	IgnoreRobots bool              `json:"ignoreRobots"` // scan option
	Gate         *GateConfig       `json:"gate"`         // storefront password gate
	DNS          map[string]string `json:"dns"`          // host → address the fake resolver answers, or "nxdomain": the host does not resolve
	// Consentd is the host that serves consentd's banner runtime (the real one, built from
	// adapters/httpapi/bannerjs) at /api/v1/public/banner.js; its configuration is recorded.
	Consentd string `json:"consentd"`
}

// GateConfig is a storefront password gate.
type GateConfig struct {
	Host     string `json:"host"`
	Password string `json:"password"`
}

// Replay serves a recorded site: the response for http(s)://host/p?q is the file host/p (or
// host/p/index.html), with "@q" appended to the name when there is a query, and its optional
// sidecar "<file>.headers" holds "Status: N" and header lines (Set-Cookie, Location, ...). A
// sidecar without a body file is a body-less response (a redirect hop).
type Replay struct {
	Dir  string
	Gate *GateConfig
}

func (rp *Replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if g := rp.Gate; g != nil && host == g.Host && r.URL.Path != "/robots.txt" {
		if r.URL.Path == "/password" && r.Method == http.MethodPost {
			_ = r.ParseForm()
			if r.PostForm.Get("form_type") == "storefront_password" && r.PostForm.Get("password") == g.Password {
				http.SetCookie(w, &http.Cookie{Name: "storefront_digest", Value: "d1g35t", Path: "/", HttpOnly: true})
				http.Redirect(w, r, "/", http.StatusFound)
				return
			}
			// Shops re-render the password page with an error.
			rp.serveFile(w, r, host, "/password", "")
			return
		}
		if c, err := r.Cookie("storefront_digest"); (err != nil || c.Value != "d1g35t") && r.URL.Path != "/password" {
			http.Redirect(w, r, "/password", http.StatusFound)
			return
		}
	}
	rp.serveFile(w, r, host, r.URL.Path, r.URL.RawQuery)
}

func (rp *Replay) serveFile(w http.ResponseWriter, r *http.Request, host, p, query string) {
	name := path.Clean("/" + p)
	if strings.HasSuffix(p, "/") {
		name = path.Join(name, "index.html")
	}
	if query != "" {
		name += "@" + query
	}
	file := filepath.Join(rp.Dir, host, filepath.FromSlash(name))
	body, bodyErr := os.ReadFile(file)
	status := http.StatusOK
	hdr, hdrErr := os.Open(file + ".headers")
	if bodyErr != nil && hdrErr != nil {
		http.NotFound(w, r)
		return
	}
	if hdrErr == nil {
		sc := bufio.NewScanner(hdr)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if strings.EqualFold(k, "Status") {
				status, _ = strconv.Atoi(v)
				continue
			}
			w.Header().Add(k, v)
		}
		hdr.Close()
	}
	if w.Header().Get("Content-Type") == "" && bodyErr == nil {
		ct := mime.TypeByExtension(path.Ext(strings.SplitN(name, "@", 2)[0]))
		if strings.HasSuffix(name, ".html") || strings.HasPrefix(ct, "text/html") {
			ct = "text/html"
		}
		w.Header().Set("Content-Type", ct)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// LoadSite reads dir/site.json.
func LoadSite(t testing.TB, dir string) SiteConfig {
	t.Helper()
	var cfg SiteConfig
	data, err := os.ReadFile(filepath.Join(dir, "site.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s/site.json: %v", dir, err)
	}
	return cfg
}
