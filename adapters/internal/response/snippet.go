package response

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/consentd/consentd/core"
)

// Setup snippet frameworks: a plain script tag, a React module, a Next.js layout, and a
// Cloudflare Worker that enforces at the edge (docs/edge.md), beside one of the others.
const (
	FrameworkScript           = "script"
	FrameworkReact            = "react"
	FrameworkNext             = "next"
	FrameworkCloudflareWorker = "cloudflare-worker"
)

// SnippetFrameworks returns the frameworks a setup snippet is written for, the default first
// (the enum of the API's query and body, pinned by httpapi's TestSchemaEnumsAreCore). The
// contract's enum (script, react, next) is extended by cloudflare-worker (#43): a value added at
// the end, which clients that know only the first three never ask for.
func SnippetFrameworks() []string {
	return []string{FrameworkScript, FrameworkReact, FrameworkNext, FrameworkCloudflareWorker}
}

// workerScript is the Cloudflare Worker (an ES module) of the cloudflare-worker snippet, with
// the rule set's URL left as rulesURLPlaceholder.
//
//go:embed worker.js
var workerScript string

// rulesURLPlaceholder is the JavaScript string literal in workerScript that For replaces
// with the site's rule set URL.
const rulesURLPlaceholder = `"__CONSENTD_RULES_URL__"`

// Snippet is a setup snippet: the code to paste and how to paste it.
type Snippet struct {
	Framework    string `json:"framework" enum:"script,react,next,cloudflare-worker"`
	Code         string `json:"code"`
	Instructions string `json:"instructions"`
}

// Snippets writes the setup snippets of a deployment, the same in the API
// (GET /sites/{id}/setup-snippet) and in the console, byte for byte.
type Snippets struct {
	// PublicURL is the external base URL of the service; "" uses the request's own.
	PublicURL string
	// Loader is whether the service serves the per-site loader (core.PublicLoader), which
	// carries the runtime and the site's configuration; without it the snippet loads the
	// runtime (core.PublicRuntime) with RuntimeVersion as its cache key.
	Loader         bool
	RuntimeVersion string
}

// For is the setup snippet for the site with projectKey in framework (the default for an
// unknown one), for a request whose base URL is base (PublicURL wins).
func (s Snippets) For(base, framework, projectKey string) Snippet {
	if p := strings.TrimRight(s.PublicURL, "/"); p != "" {
		base = p
	}
	// The per-site loader carries the runtime and the site's configuration, so that blocking
	// is armed before the parser reaches the page's other tags.
	src := base + core.PublicPath(projectKey, core.PublicLoader)
	if !s.Loader {
		src = base + core.PublicPath("", core.PublicRuntime)
		if s.RuntimeVersion != "" {
			src += "?v=" + s.RuntimeVersion
		}
	}
	if framework == FrameworkCloudflareWorker {
		return workerSnippet(base+core.PublicPath(projectKey, core.PublicEdge), src, projectKey)
	}
	return makeSnippet(framework, src, projectKey)
}

// workerSnippet is the Cloudflare Worker that applies the site's rule set (rulesURL) at the
// edge; the page still needs the banner's tag (src), which restores what the Worker held.
func workerSnippet(rulesURL, src, key string) Snippet {
	lit, _ := json.Marshal(rulesURL) // a string: no error
	return Snippet{Framework: FrameworkCloudflareWorker, Code: strings.Replace(workerScript, rulesURLPlaceholder, string(lit), 1),
		Instructions: "Deploy this as a Cloudflare Worker (an ES module) on your site's routes, in front of your origin. The banner's tag alone holds tags from running, but the browser may still fetch them (its preload scanner reads ahead, and resource hints, stylesheets and <noscript> pixels are out of any script's reach); the Worker holds them in the HTML before the browser sees it, from your visitors' consent cookie, GPC signal and country, so that nothing held is ever fetched. Keep the banner's tag first in <head> as well: it shows the banner and restores what the Worker held once the visitor allows it:\n" +
			fmt.Sprintf(`<script src="%s" data-project-key="%s"></script>`, src, key) +
			"\nThe Worker fetches the site's rule set from consentd (" + rulesURL + ") and keeps it for a minute. Set the variable CONSENTD_UPSTREAM to your origin's URL only when the Worker does not run on your site's own routes."}
}

func makeSnippet(framework, src, key string) Snippet {
	tag := fmt.Sprintf(`<script src="%s" data-project-key="%s"></script>`, src, key)
	switch framework {
	case FrameworkReact:
		return Snippet{Framework: framework, Code: fmt.Sprintf(reactSnippet, src, key), Instructions: "Save this as src/consentd.js and make `import \"./consentd\";` the very first import of your entry file (src/main.jsx or src/index.js), so the banner loads before the rest of your app. For the strictest blocking of tags that sit in index.html itself, put this tag first in index.html's <head> instead; the module sees it and does not load the banner twice:\n" + tag + "\nuseConsent() gives components the visitor's current choices; any element with data-consentd-open reopens the preferences."}
	case FrameworkNext:
		return Snippet{Framework: framework, Code: fmt.Sprintf(nextSnippet, src, key), Instructions: "App Router: merge this into app/layout.tsx. The Script component with strategy=\"beforeInteractive\" puts the banner loader (the runtime with the site's configuration) first in <head>, before Next.js and any other script runs. Mark third-party tags that need consent with type=\"text/plain\" and data-category=\"statistics\" or \"marketing\"."}
	default:
		return Snippet{Framework: FrameworkScript, Code: "<!-- consentd: keep this first in <head>, before any other script -->\n" + tag + "\n", Instructions: "Paste the tag as the first element of <head> on every page. It must stay synchronous (no async or defer): it carries the site's blocking rules, so Google Consent Mode defaults and blocking are in place before the browser reaches your other tags, and tags matching a blocking rule are held back from the first page view. The tag alone holds tags from running, not from being fetched: the browser's preload scanner may request unmarked tags (and resource hints, stylesheets and <noscript> pixels are out of any script's reach). An edge in front of your site holds them in the HTML so that they are not even requested: the Cloudflare Worker framework here, the Go middleware or consentd proxy (docs/edge.md). Without one, mark each tag by hand, a script as\n<script type=\"text/plain\" data-category=\"statistics\" src=\"https://www.googletagmanager.com/gtag/js?id=G-XXXX\"></script>\nand an iframe with its address in data-src:\n<iframe data-src=\"https://www.youtube.com/embed/VIDEO\" data-category=\"marketing\"></iframe>"}
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
