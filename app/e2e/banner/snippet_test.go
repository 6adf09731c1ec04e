package banner_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestBrowserScriptSnippetBlankPage pastes the script setup snippet, exactly as the server
// serves it, into an otherwise blank page under a strict CSP: the banner appears, and a decision
// lands on the server.
func TestBrowserScriptSnippetBlankPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	url := e.site.raw("blank", "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"+e.snippet+
		"<title>Blank</title></head><body></body></html>")
	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	eval(t, ctx, `window.__cd('[data-action=accept]').click()`, nil)
	if r := e.waitRecords(t, 1)[0]; r.Action != "accept_all" || cats(r.CategoriesConsented) != "map[essential:true marketing:true statistics:true]" {
		t.Errorf("record on the server %+v", r)
	}
	waitFor(t, ctx, `!window.__cd('[data-template]') && window.consentd.getConsent().decided`)
	noViolations(t, ctx)
}

// The framework snippets are checked with real tools: esbuild parses and bundles them (JSX for
// React, TSX for Next.js), and React renders them.
var snippetToolchain = &nodePackages{
	what:     "the snippet toolchain",
	packages: []string{"esbuild@0.24.2", "react@19.2.0", "react-dom@19.2.0"},
	dir:      "node-esbuild0.24.2-react19.2.0",
	probes:   []string{"esbuild/package.json", "react/package.json", "react-dom/server.js"},
}

// nodeToolchain returns a node_modules folder holding the snippet toolchain.
func nodeToolchain(t *testing.T) string { return snippetToolchain.path(t) }

// checkScript runs in Node with the toolchain: it checks the snippets in dir and prints a JSON
// report. A stand-in replaces next/script (the next package is a heavy install): it renders
// nothing and records the props the layout gives it, which is all a layout can rely on.
const checkScript = `
const path = require('path');
const fs = require('fs');
const [nm, dir] = process.argv.slice(2);
const esbuild = require(path.join(nm, 'esbuild'));
const out = {};
async function build(entry, loader, opts) {
  const r = await esbuild.build(Object.assign({
    stdin: { contents: entry, loader: loader, resolveDir: dir, sourcefile: 'entry.' + loader },
    bundle: true, write: false, nodePaths: [nm], jsx: 'automatic', logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  }, opts));
  return r.outputFiles[0].text;
}
function load(code) {
  const m = { exports: {} };
  new Function('module', 'exports', 'require', code)(m, m.exports, require);
  return m.exports;
}
async function attempt(name, f) {
  try { await f(); } catch (e) { out[name + 'Error'] = String(e && e.message || e); }
}
const nextScriptStandIn = {
  name: 'next-script-stand-in',
  setup(b) {
    b.onResolve({ filter: /^next\/script$/ }, () => ({ path: 'next/script', namespace: 'stand-in' }));
    b.onLoad({ filter: /.*/, namespace: 'stand-in' }, () => ({
      contents: 'export default function Script(props) { globalThis.__scriptProps = props; return null; }', loader: 'js' }));
  },
};
(async () => {
  await attempt('reactParse', () => esbuild.transform(fs.readFileSync(path.join(dir, 'consentd.js'), 'utf8'), { loader: 'jsx', format: 'esm' }));
  await attempt('nextParse', () => esbuild.transform(fs.readFileSync(path.join(dir, 'layout.tsx'), 'utf8'), { loader: 'tsx', jsx: 'automatic', format: 'esm' }));
  await attempt('react', async () => {
    const m = load(await build(
      'import { useConsent, openConsentPreferences } from "./consentd.js";\n' +
      'import { renderToStaticMarkup } from "react-dom/server";\n' +
      'function Probe() { const c = useConsent(); return <p>{c === null ? "none" : "some"}</p>; }\n' +
      'export const html = renderToStaticMarkup(<Probe />);\n' +
      'export const types = [typeof useConsent, typeof openConsentPreferences];\n',
      'jsx', { platform: 'node', format: 'cjs' }));
    out.reactHtml = m.html;
    out.reactTypes = m.types;
  });
  await attempt('reactBrowser', async () => {
    out.reactBundle = await build(
      'import { useConsent } from "./consentd.js";\n' +
      'import { createRoot } from "react-dom/client";\n' +
      'function App() { const c = useConsent(); return <p id="app">{c && c.decided ? "decided:" + c.action : "undecided"}</p>; }\n' +
      'createRoot(document.getElementById("root")).render(<App />);\n',
      'jsx', { platform: 'browser', format: 'iife' });
  });
  await attempt('next', async () => {
    const m = load(await build(
      'import RootLayout from "./layout.tsx";\n' +
      'import { renderToStaticMarkup } from "react-dom/server";\n' +
      'export const html = renderToStaticMarkup(<RootLayout><main>page</main></RootLayout>);\n',
      'tsx', { platform: 'node', format: 'cjs', plugins: [nextScriptStandIn] }));
    out.nextHtml = m.html;
    out.nextScriptProps = globalThis.__scriptProps;
  });
  process.stdout.write(JSON.stringify(out));
})();
`

// snippetReport is what checkScript prints.
type snippetReport struct {
	ReactParseError, NextParseError string
	ReactError, ReactBrowserError   string
	NextError                       string
	ReactHTML                       string   `json:"reactHtml"`
	ReactTypes                      []string `json:"reactTypes"`
	ReactBundle                     string   `json:"reactBundle"`
	NextHTML                        string   `json:"nextHtml"`
	NextScriptProps                 map[string]any
}

// TestFrameworkSnippets checks that the React and Next.js setup snippets are valid code for their
// framework: both parse (JSX, TSX) and bundle; React renders a component using the React
// module's useConsent hook; the Next.js root layout renders, with the banner's Script first in
// <head> (strategy beforeInteractive); and in Chromium, an app bundled with the React module on a
// blank page shows the banner and hears the decision.
func TestFrameworkSnippets(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "DE")
	m := snippetTag.FindStringSubmatch(e.snippet)
	if m == nil {
		t.Fatalf("script snippet: %s", e.snippet)
	}
	src, key := m[1], m[2]
	dir := t.TempDir()
	for fw, file := range map[string]string{"react": "consentd.js", "next": "layout.tsx"} {
		var sn struct{ Code string }
		mgmt(t, e.api, "GET", "/sites/"+e.id+"/setup-snippet?framework="+fw, nil, 200, &sn)
		if err := os.WriteFile(filepath.Join(dir, file), []byte(sn.Code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "check.cjs"), []byte(checkScript), 0o644); err != nil {
		t.Fatal(err)
	}
	nm := nodeToolchain(t)
	cmd := exec.Command("node", filepath.Join(dir, "check.cjs"), nm, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	var rep snippetReport
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatalf("node check: %v: %s\n%s", err, stdout, stderr.String())
	}
	for name, msg := range map[string]string{"React snippet (jsx)": rep.ReactParseError, "Next.js snippet (tsx)": rep.NextParseError,
		"React render": rep.ReactError, "React browser bundle": rep.ReactBrowserError, "Next.js layout render": rep.NextError} {
		if msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
	}
	if rep.ReactHTML != "<p>none</p>" || fmt.Sprint(rep.ReactTypes) != "[function function]" {
		t.Errorf("React: useConsent outside the browser rendered %q; exports %v", rep.ReactHTML, rep.ReactTypes)
	}
	if rep.NextHTML != `<html lang="en"><head></head><body><main>page</main></body></html>` {
		t.Errorf("Next.js layout rendered %q", rep.NextHTML)
	}
	if p := rep.NextScriptProps; p["src"] != src || p["data-project-key"] != key || p["strategy"] != "beforeInteractive" {
		t.Errorf("Next.js Script props %v, want src %s, data-project-key %s, strategy beforeInteractive", p, src, key)
	}
	if rep.ReactBundle == "" {
		return
	}

	// The React app on a blank page: the module loads the banner, useConsent follows the decision.
	e.site.file("react-app.js", rep.ReactBundle)
	url := e.site.raw("react", `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>React app</title></head>
<body><div id="root"></div><script src="/static/react-app.js"></script></body></html>`)
	ctx := tab(t)
	navigate(t, ctx, url)
	waitFor(t, ctx, bannerShown)
	var first string
	eval(t, ctx, `document.head.firstElementChild.outerHTML`, &first)
	if first != `<script src="`+src+`" data-project-key="`+key+`"></script>` {
		t.Errorf("first element of <head> %s, want the banner script", first)
	}
	waitFor(t, ctx, `document.getElementById('app') && document.getElementById('app').textContent === 'undecided'`)
	eval(t, ctx, `window.__cd('[data-action=reject]').click()`, nil)
	waitFor(t, ctx, `document.getElementById('app').textContent === 'decided:reject_all'`)
	if r := e.waitRecords(t, 1)[0]; r.Action != "reject_all" {
		t.Errorf("record on the server %+v", r)
	}
	noViolations(t, ctx)
}
