package extract

import (
	"bytes"
	"net/url"
	"strings"
)

// setBase sets the URL relative references resolve against.
func (x *Extractor) setBase(u *url.URL) {
	x.base = u
	x.linkPrefix, x.linkDir = "", ""
	if (u.Scheme == "http" || u.Scheme == "https") && u.User == nil && u.Opaque == "" && u.RawPath == "" &&
		u.Host != "" && strings.Trim(u.Host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") == "" &&
		plainPath(u.Path) {
		// "scheme://host", cut from the page's URL when it starts so (no copy per page).
		n := len(u.Scheme) + 3 + len(u.Host)
		if p := x.page; len(p) >= n && p[:len(u.Scheme)] == u.Scheme && p[len(u.Scheme):len(u.Scheme)+3] == "://" && p[len(u.Scheme)+3:n] == u.Host {
			x.linkPrefix = p[:n]
		} else {
			x.linkPrefix = u.Scheme + "://" + u.Host
		}
		x.linkDir = u.Path[:strings.LastIndexByte(u.Path, '/')+1]
	}
}

// plainPath reports whether p is made of letters, digits, '-', '.', '_', '~' and '/' only, without
// "." or ".." segments: a path net/url keeps as it is.
func plainPath[T string | []byte](p T) bool {
	seg, dots := 0, 0 // the current segment's length and number of dots
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '/':
			if dots > 0 && dots <= 2 && dots == seg {
				return false
			}
			seg, dots = 0, 0
			continue
		case c == '.':
			dots++
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '~':
		default:
			return false
		}
		seg++
	}
	return !(dots > 0 && dots <= 2 && dots == seg)
}

// plainLink resolves a reference ("/a/b.html?x=1", "c.html", "https://host/d") the way net/url
// would, without parsing, when it and the base are plain: abs is the absolute URL and path its
// path. ok is false for any other reference.
func (x *Extractor) plainLink(raw []byte) (abs, path string, ok bool) {
	if len(raw) == 0 {
		return "", "", false
	}
	end := bytes.IndexByte(raw, '?')
	if end < 0 {
		end = len(raw)
	}
	p, q := raw[:end], raw[end:]
	for _, c := range q {
		if c <= ' ' || c >= 0x7f || c == '#' {
			return "", "", false
		}
	}
	if host, rest, isAbs := cutHTTPScheme(p); isAbs {
		// An absolute URL: net/url keeps a plain one as it is.
		if !plainHost(host) || (len(rest) > 0 && rest[0] != '/') || !plainPath(rest) {
			return "", "", false
		}
		abs = string(raw)
		start := len(abs) - len(raw) + len(p) - len(rest)
		return abs, abs[start : start+len(rest)], true
	}
	if x.linkPrefix == "" || len(p) == 0 || (len(p) > 1 && p[0] == '/' && p[1] == '/') || !plainPath(p) {
		return "", "", false
	}
	dir := ""
	if p[0] != '/' {
		dir = x.linkDir
		if dir == "" {
			dir = "/"
		}
	}
	abs = x.linkPrefix + dir + string(raw)
	start := len(x.linkPrefix)
	return abs, abs[start : start+len(dir)+len(p)], true
}

// cutHTTPScheme splits "http://host/path" (scheme in lower case) into host and path.
func cutHTTPScheme(p []byte) (host, rest []byte, ok bool) {
	switch {
	case bytes.HasPrefix(p, []byte("https://")):
		p = p[8:]
	case bytes.HasPrefix(p, []byte("http://")):
		p = p[7:]
	default:
		return nil, nil, false
	}
	i := bytes.IndexByte(p, '/')
	if i < 0 {
		i = len(p)
	}
	return p[:i], p[i:], true
}

// plainHost reports whether h is a host name of letters, digits, '-' and '.', with an optional
// numeric port.
func plainHost(h []byte) bool {
	if i := bytes.IndexByte(h, ':'); i >= 0 {
		for _, c := range h[i+1:] {
			if c < '0' || c > '9' {
				return false
			}
		}
		h = h[:i]
	}
	if len(h) == 0 {
		return false
	}
	for _, c := range h {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// linkBytes records an <a href> for the crawl frontier.
func (x *Extractor) linkBytes(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if abs, path, ok := x.plainLink(raw); ok {
		if !skipExtension(path) {
			x.rep.addLink(abs)
		}
		return
	}
	x.link(string(raw))
}

// link records an <a href> for the crawl frontier.
func (x *Extractor) link(raw string) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw[0] == '#' {
		return
	}
	u, err := x.base.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return
	}
	u.Fragment, u.RawFragment = "", ""
	if skipExtension(u.Path) {
		return
	}
	x.rep.addLink(u.String())
}

// skipExtension is true for links that are certainly not HTML pages.
func skipExtension(p string) bool {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.IndexByte(p[i:], '/') >= 0 {
		return false
	}
	switch strings.ToLower(p[i+1:]) {
	case "pdf", "jpg", "jpeg", "png", "gif", "webp", "svg", "ico", "zip", "gz", "mp4", "mp3", "webm",
		"css", "js", "json", "xml", "txt", "csv", "doc", "docx", "xls", "xlsx", "woff", "woff2", "ttf", "avif":
		return true
	}
	return false
}
