package library

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Pattern is a compiled URL pattern of the library's pattern language (see README.md):
//
//	host[/path][?param=prefix]
//
// The host is matched exactly, or with a leading "*." as the host itself or any subdomain. The
// path, when given, is a prefix of the URL's path, or a glob (path.Match syntax) when it holds
// '*'. A query condition requires the named parameter to start with the given prefix. Scheme,
// port, other query parameters and fragment are ignored.
type Pattern struct {
	// Raw is the pattern as written.
	Raw string
	// Host is the lower-case host without the "*." marker.
	Host string
	// Subdomains is true when the pattern was written "*.host".
	Subdomains bool
	// Path is the path prefix or glob, "" for any path.
	Path string
	// Glob is true when Path holds a '*'.
	Glob bool
	// Param and ParamPrefix state the query condition; Param is "" when there is none.
	Param, ParamPrefix string
}

// ParsePattern compiles a pattern. It rejects empty hosts, schemes, ports and malformed query
// conditions, naming what is wrong.
func ParsePattern(raw string) (Pattern, error) {
	p := Pattern{Raw: raw}
	s := strings.TrimSpace(raw)
	if s != raw || s == "" {
		return p, fmt.Errorf("pattern %q: empty or padded with spaces", raw)
	}
	if strings.Contains(s, "://") {
		return p, fmt.Errorf("pattern %q: no scheme allowed (scheme is ignored)", raw)
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		q := s[i+1:]
		s = s[:i]
		name, prefix, ok := strings.Cut(q, "=")
		if !ok || name == "" || prefix == "" || strings.ContainsAny(q[len(name)+1:], "&=?") {
			return p, fmt.Errorf("pattern %q: query condition must be ?param=prefix", raw)
		}
		p.Param, p.ParamPrefix = name, prefix
	}
	host, pth, hasPath := strings.Cut(s, "/")
	host = strings.ToLower(host)
	if strings.HasPrefix(host, "*.") {
		p.Subdomains = true
		host = host[2:]
	}
	if !validHost(host) {
		return p, fmt.Errorf("pattern %q: host must be a domain name, optionally starting with \"*.\"", raw)
	}
	if strings.ContainsAny(raw, "# \t\n") {
		return p, fmt.Errorf("pattern %q: no fragment or white space allowed", raw)
	}
	p.Host = host
	if hasPath {
		p.Path = "/" + pth
		if p.Path == "/" {
			p.Path = ""
		}
		if strings.Contains(p.Path, "*") {
			p.Glob = true
			if _, err := path.Match(p.Path, ""); err != nil {
				return p, fmt.Errorf("pattern %q: bad path glob: %v", raw, err)
			}
		}
	}
	return p, nil
}

// validHost reports whether host is a lower-case domain name of at least two non-empty labels
// made of letters, digits, '-' and '_'.
func validHost(host string) bool {
	if !strings.Contains(host, ".") {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if label == "" {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// MatchHost reports whether host (lower case, no port) satisfies the pattern's host part.
func (p Pattern) MatchHost(host string) bool {
	if host == p.Host {
		return true
	}
	return p.Subdomains && strings.HasSuffix(host, p.Host) && host[len(host)-len(p.Host)-1] == '.'
}

// MatchURL reports whether u matches the pattern.
func (p Pattern) MatchURL(u *url.URL) bool {
	if !p.MatchHost(strings.ToLower(u.Hostname())) {
		return false
	}
	return p.matchRest(u.EscapedPath(), u.RawQuery)
}

// MatchString parses s as a URL (scheme-relative "//host/path" and scheme-less "host/path" are
// accepted) and matches it. Unparseable strings do not match.
func (p Pattern) MatchString(s string) bool {
	u, err := ParseLooseURL(s)
	if err != nil {
		return false
	}
	return p.MatchURL(u)
}

func (p Pattern) matchRest(escapedPath, rawQuery string) bool {
	if p.Path != "" {
		pth := escapedPath
		if pth == "" {
			pth = "/"
		}
		if p.Glob {
			if ok, _ := path.Match(p.Path, pth); !ok {
				return false
			}
		} else if !strings.HasPrefix(pth, p.Path) {
			return false
		}
	}
	if p.Param != "" {
		q, err := url.ParseQuery(rawQuery)
		if err != nil && len(q) == 0 {
			return false
		}
		found := false
		for _, v := range q[p.Param] {
			if strings.HasPrefix(v, p.ParamPrefix) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ParseLooseURL parses an absolute URL, a scheme-relative one ("//host/x") or a scheme-less one
// ("host/x"), as found in script src attributes and pattern examples.
func ParseLooseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "//"):
		s = "https:" + s
	case !strings.Contains(s, "://"):
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Host == "" {
		return nil, fmt.Errorf("url %q: no host", s)
	}
	return u, nil
}
