package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/adapters/trustedproxy"
	"github.com/consentd/consentd/core"
)

// Setup snippet frameworks: a plain script tag, a React module, a Next.js layout.
const (
	frameworkScript = "script"
	frameworkReact  = "react"
	frameworkNext   = "next"
)

// snippetFrameworks are the frameworks of a setup snippet (the enum of its query and body,
// pinned by TestSchemaEnumsAreCore), the default first.
var snippetFrameworks = [...]string{frameworkScript, frameworkReact, frameworkNext}

type snippet struct {
	Framework    string `json:"framework" enum:"script,react,next"`
	Code         string `json:"code"`
	Instructions string `json:"instructions"`
}

func (h *handlers) registerSnippet(api huma.API) {
	o := op("getSetupSnippet", http.MethodGet, "/sites/{id}/setup-snippet", "Integration snippet", "Setup", 0)
	o.Description = "Ready-to-paste integration code that loads the banner runtime with the site's projectKey before any other script. The base URL is CONSENTD_PUBLIC_URL, or the request's own when unset."
	huma.Register(api, o, func(ctx context.Context, in *struct {
		SiteIDPath
		Framework string `query:"framework" enum:"script,react,next" default:"script"`
	}) (*struct{ Body snippet }, error) {
		site, err := h.m.Site(ctx, orgOf(ctx), in.ID)
		if err != nil {
			return nil, h.fail(ctx, err)
		}
		return &struct{ Body snippet }{h.cfg.snippet(baseURLOf(ctx), in.Framework, site.ProjectKey)}, nil
	})
}

// SetupSnippet returns the setup snippet that GET /sites/{id}/setup-snippet answers for the
// site with projectKey, as requested by r (whose scheme and host are the base URL when
// PublicURL is unset), so that the console shows the API's snippet byte for byte.
func (c Config) SetupSnippet(r *http.Request, framework, projectKey string) (code, instructions string) {
	s := c.snippet(requestBase(trustedproxy.New(c.TrustedProxies).HTTPS(r), r.Host), framework, projectKey)
	return s.Code, s.Instructions
}

// requestBase is the base URL a client used: https when the trusted-proxy rule says the
// request came over HTTPS (trustedproxy.Rule.HTTPS).
func requestBase(https bool, host string) string {
	if https {
		return "https://" + host
	}
	return "http://" + host
}

// snippet is the setup snippet for a site on base, the request's base URL (PublicURL wins).
func (c Config) snippet(base, framework, projectKey string) snippet {
	if p := strings.TrimRight(c.PublicURL, "/"); p != "" {
		base = p
	}
	// The per-site loader carries the runtime and the site's configuration, so that blocking
	// is armed before the parser reaches the page's other tags.
	src := base + core.PublicPath(projectKey, core.PublicLoader)
	if c.RuntimeScript == nil {
		src = base + core.PublicPath("", core.PublicRuntime)
		if c.RuntimeVersion != "" {
			src += "?v=" + c.RuntimeVersion
		}
	}
	return makeSnippet(framework, src, projectKey)
}

func makeSnippet(framework, src, key string) snippet {
	tag := fmt.Sprintf(`<script src="%s" data-project-key="%s"></script>`, src, key)
	switch framework {
	case frameworkReact:
		return snippet{Framework: framework, Code: fmt.Sprintf(reactSnippet, src, key), Instructions: "Save this as src/consentd.js and make `import \"./consentd\";` the very first import of your entry file (src/main.jsx or src/index.js), so the banner loads before the rest of your app. For the strictest blocking of tags that sit in index.html itself, put this tag first in index.html's <head> instead; the module sees it and does not load the banner twice:\n" + tag + "\nuseConsent() gives components the visitor's current choices; any element with data-consentd-open reopens the preferences."}
	case frameworkNext:
		return snippet{Framework: framework, Code: fmt.Sprintf(nextSnippet, src, key), Instructions: "App Router: merge this into app/layout.tsx. The Script component with strategy=\"beforeInteractive\" puts the banner loader (the runtime with the site's configuration) first in <head>, before Next.js and any other script runs. Mark third-party tags that need consent with type=\"text/plain\" and data-category=\"statistics\" or \"marketing\"."}
	default:
		return snippet{Framework: frameworkScript, Code: "<!-- consentd: keep this first in <head>, before any other script -->\n" + tag + "\n", Instructions: "Paste the tag as the first element of <head> on every page. It must stay synchronous (no async or defer): it carries the site's blocking rules, so Google Consent Mode defaults and blocking are in place before the browser reaches your other tags, and tags matching a blocking rule are held back from the first page view. Unmarked tags may still be fetched (not run) by the browser's preload scanner; mark them so that they are not even requested:\n<script type=\"text/plain\" data-category=\"statistics\" src=\"https://www.googletagmanager.com/gtag/js?id=G-XXXX\"></script>"}
	}
}

const reactSnippet = `// consentd banner for React: import this module first in your entry file.
import { useEffect, useState } from "react";

const BANNER_SRC = %q;
const PROJECT_KEY = %q;

if (typeof document !== "undefined" && !document.querySelector("script[data-project-key]")) {
  const script = document.createElement("script");
  script.src = BANNER_SRC;
  script.async = false;
  script.dataset.projectKey = PROJECT_KEY;
  document.head.insertBefore(script, document.head.firstChild);
}

// useConsent returns the visitor's current decision ({categories: {slug: boolean}, ...}) or null.
export function useConsent() {
  const [consent, setConsent] = useState(() =>
    typeof window !== "undefined" && window.consentd ? window.consentd.getConsent() : null
  );
  useEffect(() => {
    const onChange = (event) => setConsent(event.detail);
    document.addEventListener("consentd:change", onChange);
    return () => document.removeEventListener("consentd:change", onChange);
  }, []);
  return consent;
}

// openConsentPreferences shows the preferences dialog again.
export function openConsentPreferences() {
  if (window.consentd) window.consentd.showPreferences();
}
`

const nextSnippet = `// app/layout.tsx
import Script from "next/script";
import type { ReactNode } from "react";

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <Script src=%q data-project-key=%q strategy="beforeInteractive" />
      </head>
      <body>{children}</body>
    </html>
  );
}
`
