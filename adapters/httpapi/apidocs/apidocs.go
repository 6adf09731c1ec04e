// Package apidocs serves the API reference page from assets embedded in the binary: a pinned,
// vendored Redoc bundle (VERSION.md) renders the served OpenAPI document, with no request
// leaving the server, so the page works on a machine without internet access.
package apidocs

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"net/http"
	"strings"
)

//go:embed redoc.standalone.js
var bundle []byte

// redoc is the bundle as served: its one hard-wired outside request, the attribution logo from
// Redocly's CDN, points at an empty image instead, so that the page reaches no other host (the
// vendored file itself stays byte for byte as published).
var redoc = bytes.ReplaceAll(bundle, []byte("https://cdn.redoc.ly/redoc/logo-mini.svg"), []byte("data:,"))

var redocETag = func() string {
	sum := sha256.Sum256(redoc)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}()

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>consentd API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="{{openapi}}" hide-download-button="false"></redoc>
<script src="{{script}}"></script>
</body>
</html>
`

// Page serves the reference page for the OpenAPI document at openapiURL, loading the renderer
// from scriptURL (where Script is served).
func Page(openapiURL, scriptURL string) http.Handler {
	body := strings.NewReplacer("{{openapi}}", openapiURL, "{{script}}", scriptURL).Replace(page)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		// Only this server's own scripts, styles, images and workers: the page cannot reach out.
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "+
			"img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'")
		w.Write([]byte(body)) //nolint:errcheck // the client went away
	})
}

// Script serves the vendored renderer, cacheable and revalidated by its ETag.
func Script() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("ETag", redocETag)
		if r.Header.Get("If-None-Match") == redocETag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(redoc) //nolint:errcheck // the client went away
	})
}
