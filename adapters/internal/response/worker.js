// consentd edge for Cloudflare Workers (docs/edge.md): put this Worker on the routes of your
// site. It passes every request to your origin and, in the HTML pages it answers, holds what
// the visitor has not allowed before the browser sees it (scripts, iframes, stylesheets,
// pixels, resource hints), in the forms the consentd banner restores once the visitor allows
// them. It fetches the site's rule set from consentd (cached for a minute, revalidated with its
// ETag) and decides as consentd's banner does, from the visitor's consent cookie, Global
// Privacy Control signal and country. Without the rule set it passes pages through untouched
// (the banner still holds what runs). Optional variable: CONSENTD_UPSTREAM, the origin's base
// URL when the Worker does not run on the origin's own routes (a workers.dev address).
const RULES_URL = "__CONSENTD_RULES_URL__";
const FORMAT = 1;
const HINTS = ["preload", "modulepreload", "prefetch", "preconnect", "dns-prefetch"];
const MAX_AGE = 60000;

let cache = null; // {set, etag, at}: the rule set, per isolate

async function ruleSet() {
  const now = Date.now();
  if (cache && now - cache.at < MAX_AGE) return cache.set;
  try {
    const res = await fetch(RULES_URL, { headers: cache && cache.etag ? { "If-None-Match": cache.etag } : {} });
    if (res.status === 304 && cache) {
      cache.at = now;
      return cache.set;
    }
    if (!res.ok) throw new Error("HTTP " + res.status);
    const rs = await res.json();
    let set = null;
    if (rs.format === FORMAT) set = compileSet(rs);
    else console.warn("consentd: rule set format " + rs.format + " is newer than this Worker's (" + FORMAT + "): pages pass untouched; update the Worker");
    cache = { set, etag: res.headers.get("ETag"), at: now };
    return set;
  } catch (e) {
    console.warn("consentd: rule set unavailable: " + e.message);
    if (cache) cache.at = now - MAX_AGE + 5000; // retry in 5 s
    return cache ? cache.set : null;
  }
}

// ---- The pattern language (library/README.md; mirrors library/pattern.go). ----
function compile(raw) {
  if (typeof raw !== "string" || !raw || raw.trim() !== raw || raw.indexOf("://") >= 0 || /[# \t\n]/.test(raw)) return null;
  let s = raw, param = "", pre = "";
  const qi = s.indexOf("?");
  if (qi >= 0) {
    const q = s.slice(qi + 1), eq = q.indexOf("=");
    s = s.slice(0, qi);
    if (eq <= 0) return null;
    param = q.slice(0, eq);
    pre = q.slice(eq + 1);
    if (!pre || /[&=?]/.test(pre)) return null;
  }
  const si = s.indexOf("/");
  let host = (si < 0 ? s : s.slice(0, si)).toLowerCase();
  let path = si < 0 ? "" : "/" + s.slice(si + 1);
  if (path === "/") path = "";
  const sub = host.slice(0, 2) === "*.";
  if (sub) host = host.slice(2);
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)+$/.test(host)) return null;
  let glob = null;
  if (path.indexOf("*") >= 0) {
    glob = globRegExp(path);
    if (!glob) return null;
  }
  return { host, sub, path, glob, param, pre };
}
// globRegExp translates Go's path.Match syntax (*, ?, [class], \escape) to an anchored RegExp.
function globRegExp(g) {
  let r = "^", i = 0;
  const esc = (c) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
  while (i < g.length) {
    const c = g[i++];
    if (c === "*") r += "[^/]*";
    else if (c === "?") r += "[^/]";
    else if (c === "\\") { if (i >= g.length) return null; r += esc(g[i++]); }
    else if (c === "[") {
      let cls = "[", n = 0;
      if (g[i] === "^") { cls += "^"; i++; }
      for (;;) {
        if (i >= g.length) return null;
        let k = g[i++];
        if (k === "]" && n > 0) break;
        if (k === "\\") { if (i >= g.length) return null; k = g[i++]; }
        if (k === "-" && n > 0 && g[i] !== "]") { cls += "-"; continue; }
        cls += esc(k);
        n++;
      }
      r += cls + "]";
    } else r += esc(c);
  }
  try { return new RegExp(r + "$"); } catch (e) { return null; }
}
function hostMatches(p, h) {
  return h === p.host || (p.sub && h.length > p.host.length && h.slice(-p.host.length - 1) === "." + p.host);
}
function matches(p, u, h) {
  if (!hostMatches(p, h)) return false;
  const path = u.pathname || "/";
  if (p.path && (p.glob ? !p.glob.test(path) : path.indexOf(p.path) !== 0)) return false;
  if (!p.param) return true;
  for (const pair of u.search.slice(1).split("&")) {
    if (!pair || pair.indexOf(";") >= 0) continue;
    const eq = pair.indexOf("=");
    let k = eq < 0 ? pair : pair.slice(0, eq), v = eq < 0 ? "" : pair.slice(eq + 1);
    try {
      k = decodeURIComponent(k.replace(/\+/g, " "));
      v = decodeURIComponent(v.replace(/\+/g, " "));
    } catch (e) { continue; }
    if (k === p.param && v.indexOf(p.pre) === 0) return true;
  }
  return false;
}

// compileSet compiles the rule set's patterns once.
function compileSet(rs) {
  const unheld = rs.unheldHosts || [];
  const free = (p) => unheld.some((g) => p.host === g || p.host.slice(-g.length - 1) === "." + g);
  const list = (rule, raws) => (raws || []).map(compile).filter(Boolean).map((p) => Object.assign(p, { rule, free: free(p) }));
  const rules = (rs.rules || []).map((r) => ({ service: r.service, category: r.category }));
  rules.forEach((rule, i) => {
    rule.patterns = list(rule, rs.rules[i].patterns);
    rule.resources = list(rule, rs.rules[i].resources);
  });
  return Object.assign({}, rs, { rules });
}

// ---- The visitor: place, stored decision, GPC signal (docs/edge.md, "Deciding"). ----
function policyAt(rs, country, region) {
  let i = region && Object.prototype.hasOwnProperty.call(rs.places, region) ? rs.places[region] : undefined;
  if (i === undefined) i = country && Object.prototype.hasOwnProperty.call(rs.places, country) ? rs.places[country] : rs.unknown;
  return rs.policies[i] || null;
}
function decision(rs, header) {
  const name = rs.cookie.name + "=";
  for (let part of (header || "").split(";")) {
    part = part.replace(/^\s+/, "");
    if (part.indexOf(name) !== 0) continue;
    try {
      const v = JSON.parse(decodeURIComponent(part.slice(name.length)));
      return v && typeof v.c === "object" && v.c && !Array.isArray(v.c) ? v : null;
    } catch (e) { return null; }
  }
  return null;
}
function allowedFor(rs, P, d, gpc) {
  const current = !!d && !(typeof d.v === "number" && d.v < rs.consentVersion) &&
    rs.categories.every((k) => typeof d.c[k] === "boolean");
  const out = {};
  for (const k in P.categories) {
    const c = P.categories[k];
    out[k] = c.required ? true : current ? d.c[k] === true : !!c.initial;
  }
  if (gpc) for (const k of P.gpcOff || []) if (!(P.categories[k] || {}).required) out[k] = false;
  return out;
}

// ---- What is held. ----
function parse(raw, base) {
  try {
    const u = new URL(raw.trim(), base);
    return u.protocol === "http:" || u.protocol === "https:" ? u : null;
  } catch (e) { return null; }
}
// first is the first pattern (of kind: patterns or resources) matching u, or null.
function first(rs, u, kind) {
  const h = u.hostname.toLowerCase();
  for (const r of rs.rules) for (const p of r[kind]) if (matches(p, u, h)) return p;
  return null;
}
function heldBy(p, allowed) { return p && !p.free && allowed[p.rule.category] !== true ? p.rule : null; }
// heldURL is the rule holding a script's or an iframe's URL (patterns alone), or null.
function heldURL(rs, allowed, raw, base) {
  const u = raw && parse(raw, base);
  return u ? heldBy(first(rs, u, "patterns"), allowed) : null;
}
// heldResource is the rule holding a stylesheet's or an image's URL: by its patterns, else by
// its resources.
function heldResource(rs, allowed, raw, base) {
  const u = raw && parse(raw, base);
  if (!u) return null;
  const p = first(rs, u, "patterns") || first(rs, u, "resources");
  return heldBy(p, allowed);
}
// heldHost is whether a resource hint to host must go: some held rule's pattern or resource is
// on it.
function heldHost(rs, allowed, raw, base) {
  const u = raw && parse(raw, base);
  if (!u) return false;
  const h = u.hostname.toLowerCase();
  return rs.rules.some((r) => allowed[r.category] !== true &&
    r.patterns.concat(r.resources).some((p) => !p.free && hostMatches(p, h)));
}
const JS = /^\s*((text|application)\/(x-)?(java|ecma)script|module)?\s*$/i;
const URLS = /(?:https?:)?\/\/[a-z0-9.-]+[^\s"'`<>\\]*/gi;
function heldText(rs, allowed, text, base) {
  for (const m of text.match(URLS) || []) {
    const r = heldURL(rs, allowed, m, base);
    if (r) return r;
  }
  return null;
}
function mark(el, F, r) {
  el.setAttribute(F.category, r.category);
  el.setAttribute(F.service, r.service);
}
function attr(s) { return String(s).replace(/&/g, "&amp;").replace(/"/g, "&quot;"); }

function rewriter(rs, allowed, pageURL) {
  const F = rs.forms;
  let base = pageURL;
  let script = null, noscript = null;
  return new HTMLRewriter()
    .on("base[href]", { element(el) { const u = parse(el.getAttribute("href"), pageURL); if (u) base = u.href; } })
    .on("script", {
      element(el) {
        script = null;
        const type = el.getAttribute("type");
        if (type === F.scriptType) return;
        const src = el.getAttribute("src");
        if (src !== null) {
          const r = heldURL(rs, allowed, src, base);
          if (!r) return;
          if (type !== null) el.setAttribute(F.originalType, type);
          el.setAttribute("type", F.scriptType);
          mark(el, F, r);
          return;
        }
        if (type === null || JS.test(type)) script = { attrs: [...el.attributes], type, text: "" };
      },
      // An inline script is read whole before it is written: held, it is emptied and followed
      // by its held form (its attributes, type text/plain, its category and service).
      text(chunk) {
        if (!script) return;
        script.text += chunk.text;
        chunk.remove();
        if (!chunk.lastInTextNode) return;
        const s = script, r = heldText(rs, allowed, s.text, base);
        script = null;
        if (!r) { chunk.replace(s.text, { html: true }); return; }
        const attrs = s.attrs.filter((a) => a[0] !== "type").map((a) => " " + a[0] + '="' + attr(a[1]) + '"').join("") +
          (s.type !== null ? " " + F.originalType + '="' + attr(s.type) + '"' : "");
        chunk.replace("</script><script" + attrs + ' type="' + F.scriptType + '" ' + F.category + '="' + attr(r.category) + '" ' +
          F.service + '="' + attr(r.service) + '">' + s.text, { html: true });
      }
    })
    .on("iframe[src]", {
      element(el) {
        const src = el.getAttribute("src"), r = heldURL(rs, allowed, src, base);
        if (!r) return;
        el.removeAttribute("src");
        el.setAttribute(F.iframeSrc, src);
        mark(el, F, r);
      }
    })
    .on("link[href][rel]", {
      element(el) {
        const rel = el.getAttribute("rel").toLowerCase().split(/\s+/), href = el.getAttribute("href");
        if (rel.some((x) => HINTS.indexOf(x) >= 0) && heldHost(rs, allowed, href, base)) { el.remove(); return; }
        if (rel.indexOf("stylesheet") < 0) return;
        const r = heldResource(rs, allowed, href, base);
        if (!r) return;
        el.removeAttribute("href");
        el.setAttribute(F.linkHref, href);
        mark(el, F, r);
      }
    })
    .on("img[src]", {
      element(el) {
        const src = el.getAttribute("src"), r = heldResource(rs, allowed, src, base);
        if (!r) return;
        el.removeAttribute("src");
        el.setAttribute(F.imgSrc, src);
        const set = el.getAttribute("srcset");
        if (set !== null) { el.removeAttribute("srcset"); el.setAttribute(F.imgSrcset, set); }
        mark(el, F, r);
      }
    })
    // <noscript> is text to a browser that runs scripts (and to this parser): its images are
    // rewritten in it.
    .on("noscript", {
      element() { noscript = ""; },
      text(chunk) {
        if (noscript === null) return;
        noscript += chunk.text;
        chunk.remove();
        if (!chunk.lastInTextNode) return;
        const t = noscript;
        noscript = null;
        chunk.replace(t.replace(/<img\b[^>]*>/gi, (tag) => holdImgTag(rs, allowed, tag, base, F)), { html: true });
      }
    });
}
function holdImgTag(rs, allowed, tag, base, F) {
  const m = /\ssrc\s*=\s*("([^"]*)"|'([^']*)'|([^\s>"']+))/i.exec(tag);
  if (!m) return tag;
  const src = (m[2] !== undefined ? m[2] : m[3] !== undefined ? m[3] : m[4]).replace(/&amp;/g, "&");
  const r = heldResource(rs, allowed, src, base);
  if (!r) return tag;
  tag = tag.slice(0, m.index) + " " + F.imgSrc + "=" + m[1] + tag.slice(m.index + m[0].length);
  return tag.replace(/\ssrcset\s*=/i, " " + F.imgSrcset + "=").replace(/\s*\/?>$/, (end) =>
    " " + F.category + '="' + attr(r.category) + '" ' + F.service + '="' + attr(r.service) + '"' + end);
}

export default {
  async fetch(request, env) {
    let req = request;
    if (env && env.CONSENTD_UPSTREAM) {
      const u = new URL(request.url), up = new URL(env.CONSENTD_UPSTREAM);
      u.protocol = up.protocol;
      u.host = up.host;
      req = new Request(u, request);
    }
    const res = await fetch(req);
    if (!/^text\/html/i.test(res.headers.get("Content-Type") || "")) return res;
    const rs = await ruleSet();
    if (!rs || !rs.siteWide || !rs.rules.length) return res;
    // The page depends on the visitor's cookie, signal and place: no shared cache may keep it.
    const out = new Response(res.body, res);
    out.headers.append("Vary", "Cookie, Sec-GPC");
    const cc = (res.headers.get("Cache-Control") || "").split(",").map((x) => x.trim())
      .filter((x) => x && !/^(public|private|s-maxage=.*)$/i.test(x));
    out.headers.set("Cache-Control", ["private"].concat(cc).join(", "));
    const cf = request.cf || {};
    const country = cf.country && !/^(XX|T1)$/.test(cf.country) ? cf.country : "";
    const P = policyAt(rs, country, country && cf.regionCode ? country + "-" + cf.regionCode : "");
    if (!P) return out;
    const allowed = allowedFor(rs, P, decision(rs, request.headers.get("Cookie")), request.headers.get("Sec-GPC") === "1");
    if (rs.rules.every((r) => allowed[r.category] === true)) return out; // nothing held: the page as it is
    return rewriter(rs, allowed, request.url).transform(out);
  }
};
