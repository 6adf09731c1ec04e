package console_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestConsoleScanChanges: the recorded blog is scanned, a Hotjar tag is added to it, and it is
// scanned again; the second scan's page says what changed and the scans page lists both scans
// as the site's timeline, with the change summary linking to it. A widget whose host refuses
// the connection is listed with why it could not be loaded.
func TestConsoleScanChanges(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	var changed atomic.Bool
	dir := filepath.Join("..", "..", "..", "testdata", "sites", "blog", "blog.example")
	files := http.FileServer(http.Dir(dir))
	blogSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			files.ServeHTTP(w, r)
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, "index.html"))
		if err != nil {
			t.Error(err)
			return
		}
		// A widget whose host refuses the connection: no visitor gets it, and both scans say so.
		tags := `<script async src="http://localhost:1/widget/embed.js"></script>`
		if changed.Load() {
			tags += `<script async src="https://static.hotjar.com/c/hotjar-3141592.js?sv=6"></script>`
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(bytes.Replace(b, []byte("</head>"), []byte(tags+`</head>`), 1))
	}))
	t.Cleanup(blogSrv.Close)
	blog := blogSrv.URL + "/"
	api := func(method, path string, body, out any) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.base+"/api/v1"+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+apiKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d", method, path, res.StatusCode)
		}
		if out != nil {
			if err := json.NewDecoder(res.Body).Decode(out); err != nil {
				t.Fatal(err)
			}
		}
	}
	var site struct{ ID string }
	api("POST", "/sites", map[string]string{"name": "Field Notes", "url": blog}, &site)
	scan := func() string {
		var s struct{ ID, Status string }
		api("POST", "/sites/"+site.ID+"/scan", map[string]string{"mode": "static"}, &s)
		for deadline := time.Now().Add(time.Minute); s.Status != "completed"; time.Sleep(100 * time.Millisecond) {
			if s.Status == "failed" || time.Now().After(deadline) {
				t.Fatalf("scan %s", s.Status)
			}
			api("GET", "/sites/"+site.ID+"/scans/"+s.ID, nil, &s)
		}
		return s.ID
	}
	first := scan()
	changed.Store(true)
	second := scan()

	ctx := tab(t)
	navigate(t, ctx, srv.base+"/")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")

	navigate(t, ctx, srv.base+"/sites/"+site.ID+"/scans/"+second)
	mustContain(t, ctx, "What changed", "Compared with the previous static scan", "1 service added, 1 tracking ID added.",
		"Service added Hotjar (Statistics)", "http://localhost:1/widget/embed.js", "Could not be loaded:",
		"No visitor gets this script: fix its address or remove the tag.")
	checkPage(t, ctx, srv.base, "20-scan-changes")
	navigate(t, ctx, srv.base+"/sites/"+site.ID+"/scans/"+first)
	mustContain(t, ctx, "This is the site's first completed static scan")

	navigate(t, ctx, srv.base+"/sites/"+site.ID+"/scans")
	mustContain(t, ctx, "Timeline", "First static scan")
	var href string
	eval(t, ctx, "document.querySelector('a[href$=\"#changes\"]').getAttribute('href')", &href)
	if !strings.HasSuffix(href, "/scans/"+second+"#changes") {
		t.Fatalf("timeline links the change summary to %q, want the second scan", href)
	}
	checkPage(t, ctx, srv.base, "21-scan-timeline")
}
