package core

import (
	"net/url"
	"strings"
)

// The public URL layout, written once: the API's base path, the public endpoints under it and
// the resources a site's banner fetches. The HTTP routes, the setup snippet, the console's
// preview, the crawler (which must not report consentd's own resources as findings) and the
// banner runtime's build all derive their paths from here.
const (
	// APIPrefix is the base path of the API ({base_url} of the contract).
	APIPrefix = "/api/v1"
	// PublicPrefix is the base path of the endpoints the banner runtime calls, without auth.
	PublicPrefix = APIPrefix + "/public"
)

// Public resources: the runtime and its lazily loaded module are site-independent; the others
// are a site's, under its project key.
const (
	PublicRuntime     = "banner.js"      // the banner runtime, immutable per version
	PublicRuntimeMore = "banner-more.js" // what the runtime's first view does not need (preferences, declaration, placeholders), immutable per version
	PublicLoader      = "loader.js"      // the runtime with the site's configuration inlined
	PublicConfigPath  = "config"         // the runtime configuration (JSON)
	PublicConsentPath = "consent"        // where decisions are posted
	PublicEventsPath  = "events"         // where the runtime sends its interaction events (core/analytics)
	PublicDeclaration = "declaration"    // the cookie declaration (JSON or HTML)
	PublicCookiesPage = "cookies"        // the cookie declaration page
	// PublicTCFModule is the IAB TCF module (CMP API, TCF layers, TC string), site-independent
	// and immutable per version like PublicRuntime; the loader's __tcfapi stub loads it where
	// the TCF applies.
	PublicTCFModule = "tcf.js"
	// PublicTCFConfig is a site's TCF configuration in the visitor's language (JSON), which
	// the TCF module fetches.
	PublicTCFConfig = "tcf"
)

// publicRuntimes are the site-independent resources, directly under PublicPrefix.
var publicRuntimes = [...]string{PublicRuntime, PublicRuntimeMore, PublicTCFModule}

// publicSiteResources are the resources under a project key.
var publicSiteResources = [...]string{PublicLoader, PublicConfigPath, PublicConsentPath, PublicEventsPath, PublicDeclaration, PublicCookiesPage, PublicTCFConfig}

// PublicRoute is the route of a public resource relative to APIPrefix, with the project key
// as the path parameter {projectKey}: "/public/banner.js", "/public/{projectKey}/config".
func PublicRoute(resource string) string {
	if siteIndependent(resource) {
		return "/public/" + resource
	}
	return "/public/{projectKey}/" + resource
}

// PublicPath is the absolute path of a public resource of the site with projectKey (ignored
// for the site-independent PublicRuntime, PublicRuntimeMore and PublicTCFModule): "/api/v1/public/banner.js",
// "/api/v1/public/pk_x/loader.js".
func PublicPath(projectKey, resource string) string {
	if siteIndependent(resource) {
		return PublicPrefix + "/" + resource
	}
	return PublicPrefix + "/" + url.PathEscape(projectKey) + "/" + resource
}

// ParsePublicPath reports whether the path p (of a URL on any host, so that a deployment on
// another domain or behind a path prefix is recognised) names one of consentd's public
// resources, and which: the resource and, for a site's, the project key.
func ParsePublicPath(p string) (resource, projectKey string, ok bool) {
	i := strings.LastIndex(p, PublicPrefix+"/")
	if i < 0 {
		return "", "", false
	}
	rest := p[i+len(PublicPrefix)+1:]
	if siteIndependent(rest) {
		return rest, "", true
	}
	key, res, found := strings.Cut(rest, "/")
	if !found || key == "" || strings.Contains(res, "/") {
		return "", "", false
	}
	for _, r := range publicSiteResources {
		if res == r {
			if k, err := url.PathUnescape(key); err == nil {
				return r, k, true
			}
			return "", "", false
		}
	}
	return "", "", false
}

// siteIndependent reports whether resource is one of the site-independent publicRuntimes.
func siteIndependent(resource string) bool {
	for _, r := range publicRuntimes {
		if resource == r {
			return true
		}
	}
	return false
}
