package main

import (
	"fmt"
	"strconv"

	"github.com/consentd/consentd/core"
	corescan "github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/crawler"
)

// A setting is one thing a command can be told: its flag, its one environment variable
// (CONSENTD_ and the flag's name in capitals, dashes as underscores), at most one alias flag
// (which reads no variable of its own), its default and what it means. Commands bind settings
// from this table by name (bind), so that --help, the environment and the list of known
// variables all come from one place. To add a setting, add a row here and bind it in the
// commands that take it.
type setting struct {
	name string
	// alias is another flag name for the same setting (e.g. --mode for --scan-mode).
	alias string
	// def is the default value, as the flag parses it ("" for none).
	def string
	// shown describes the default in --help when def alone would mislead (a zero that means
	// "derived from something else").
	shown string
	usage string
}

// settings are the settings of every command, so that a variable meant for another command is
// not reported as misspelled.
var settings = []setting{
	// The database, the library and the logs: every command that opens the database.
	{name: "database-url", def: "sqlite://consentd.db", usage: "sqlite://PATH (embedded) or postgres://..."},
	{name: "library-dir", usage: "directory of extra or overriding library entries"},
	{name: "log-level", def: "info", usage: "debug, info, warn or error"},
	{name: "log-format", def: "auto", usage: "json, text, or auto: text on a terminal, JSON otherwise"},

	// proxy (docs/edge.md); it takes addr, country-header and region-header too.
	{name: "upstream", usage: "the site's origin, which proxy forwards every request to (http or https URL)"},
	{name: "consentd-url", usage: "consentd's base URL, which proxy fetches the site's edge rule set from (its public edge endpoint, docs/edge.md)"},
	{name: "rule-set-revalidate", def: "10s", usage: "how often proxy revalidates the edge rule set (its ETag) while applying the one in hand"},
	{name: "metrics-addr", usage: "where proxy serves /metrics and /healthz (off when empty; every path of --addr is the site's)"},

	// serve
	{name: "addr", def: "127.0.0.1:8080", usage: "listen address"},
	{name: "workers", def: "4", usage: "scan jobs worked in-process (0: none, leave them to 'consentd worker')"},
	{name: "public-url", shown: "taken from the request", usage: "external base URL used in setup snippets"},
	{name: "bootstrap-api-key", usage: "when the database has no organization, create organization 'default' owning this key"},
	{name: "country-header", usage: "trusted request header carrying the visitor's ISO country code (e.g. CF-IPCountry)"},
	{name: "region-header", usage: "trusted request header carrying the visitor's subdivision (e.g. CF-Region-Code), as US-CA or CA"},
	{name: "geoip-db", shown: "the embedded country database", usage: "an MMDB file to geolocate with instead (country, and subdivision where it has them; docs/geolocation.md)"},
	{name: "tcf-gvl-file", shown: "none (TCF off until the list is fetched)", usage: "the IAB's Global Vendor List (v3 JSON) read from this file, with purposes-<lang>.json beside it, instead of fetching it (offline installs, tests; docs/tcf.md)"},
	{name: "tcf-cmp-id", def: "0", shown: "0 (none: TCF cannot be turned on)", usage: "the CMP ID IAB Europe assigned you as a registered CMP; never a made-up or borrowed one (docs/tcf.md)"},
	{name: "tcf-cmp-version", def: "1", usage: "your CMP's version, written into every TC string (0 to 4095)"},
	{name: "public-rate-limit", def: "20", usage: "public-endpoint requests per second per client address (0: off)"},
	{name: "trusted-proxies", usage: "CIDRs of reverse proxies whose X-Forwarded-For/Forwarded name the client (rate limits, geolocation) and whose X-Forwarded-Proto says HTTPS (Secure cookies)"},
	{name: "oidc-org", usage: "organization (ID or name) whose members may sign in through the OpenID provider"},
	{name: "oidc-issuer", usage: "OpenID provider's issuer URL, for the console's single sign-on (needs --public-url)"},
	{name: "oidc-client-id", usage: "consentd's client ID at the OpenID provider"},
	{name: "oidc-client-secret", usage: "consentd's client secret at the OpenID provider"},
	{name: "oidc-domains", usage: "email domains that may join through single sign-on, comma-separated"},
	{name: "oidc-role", def: "viewer", usage: "role of people on their first single sign-on: admin, editor, privacy or viewer"},
	{name: "oidc-allow-private", def: "false", usage: "let organizations' own single sign-on providers be http URLs on loopback or private addresses (docs/teams.md)"},
	{name: "console", def: "true", usage: "serve the web console at / (sign in with an API key)"},
	{name: "instance-id", shown: "serve: serve@HOST:PORT of this host and --addr; worker: none", usage: "this process's scan-worker ID on Postgres, the same across its restarts and unique among live processes: a restarted process takes back at once the scans its killed predecessor left running"},

	// Scans: serve and worker take all; scan and verify those that reach sites.
	{name: "scan-allow-private", alias: "allow-private", def: "false", usage: "let the scanner reach loopback, private and link-local addresses"},
	{name: "scan-mode", alias: "mode", def: core.ScanAuto, usage: "mode of scans triggered without one: static, deep (headless Chromium) or auto (deep when a browser is installed)"},
	{name: "scan-browsers", def: "1", usage: "headless browsers this process runs at most for deep scans"},
	{name: "chromium-path", shown: "chromium-headless-shell, else chromium, on the PATH", usage: "Chromium executable for deep scans"},
	{name: "scan-connect-to", alias: "connect-to", usage: "connect-to rules HOST:PORT:CONNECT_HOST:CONNECT_PORT, curl's meaning (empty HOST or PORT: any), comma-separated or repeated (tests, intranets)"},
	{name: "scan-ca-cert", alias: "ca-cert", usage: "PEM file of an extra root certificate every scan trusts (tests, intranets)"},
	{name: "rescan-interval", def: "0s", shown: "0s (never)", usage: "rescan every site's homepage this often, e.g. 720h"},
	{name: "scan-timeout", def: "5m0s", usage: "time limit of one scan attempt"},
	{name: "scan-max-attempts", def: "3", usage: "attempts of a scan that fails with a temporary error"},
	{name: "scan-retry-base", def: "5s", usage: "delay before the first retry, doubled on each further one"},
	{name: "scan-rescue-after", def: "0s", shown: "scan-timeout plus 1m", usage: "time after which a scan attempt whose worker died is worked again (at least scan-timeout)"},
	{name: "smtp-url", usage: "smtp://[user:password@]host[:port]?from=ADDRESS (or smtps://): send sites' email digests through this server (docs/webhooks.md)"},
	{name: "webhook-allow-private", def: "false", usage: "let webhook endpoints be loopback, private or link-local addresses (docs/webhooks.md)"},
	{name: "shutdown-timeout", def: "30s", usage: "on SIGTERM, how long running requests and scans may take to finish before they are cancelled"},
	{name: "max-pages", def: strconv.Itoa(crawler.DefaultMaxPages), usage: "most pages to fetch"},
	{name: "password", usage: "storefront password, submitted when the shop shows its password page"},

	// verify
	{name: "project-key", shown: "the one the pages' consentd runtime names", usage: "the site's project key"},
	{name: "fail-on", def: corescan.SeverityError, usage: "exit with status 1 when a finding is this severe or more: error, warning or notice"},
	{name: "json", def: "false", usage: "print the compliance report as JSON (docs/compliance.md) instead of text"},
	{name: "categories", usage: "category slugs, comma-separated: one more consent state per category, only it accepted"},
	{name: "api-url", usage: "with --api-key: the consentd API the site's runtime uses (https://consent.example.com" + core.APIPrefix + ")"},
	{name: "api-key", usage: "an API key that may configure the site (--site): the verification then visits once per regional rule, as a visitor from a place each covers, with a credential the server issues; without it, from this machine's place only, the pages' consent posts answered inside the browser"},
	{name: "place", usage: "with --api-key: verify only the regional rule covering this place (FR, US-CA, unknown) or named so (regionRules[1])"},

	// Administration.
	{name: "org", usage: "organization ID or name (required)"},
	{name: "name", usage: "name"},
	{name: "url", usage: "site homepage, absolute http(s) URL (required)"},
	{name: "site", usage: "the site's ID (required)"},
	{name: "email", usage: "the person's email address (required)"},
	{name: "role", def: "owner", usage: "role in the organization: owner, admin, editor, privacy or viewer"},
	{name: "grace", def: "24h0m0s", usage: "how long the rotated key keeps working (0: ends at once)"},
	{name: "to", usage: "file to write the copy to (required, must not exist)"},
	{name: "out", usage: "directory to write the entries to (required); use it as CONSENTD_LIBRARY_DIR"},
}

// lookupSetting is the row of name (a flag name or an alias); it panics on a name missing from
// the table, a programming error that every test of the command finds.
func lookupSetting(name string) setting {
	for _, s := range settings {
		if s.name == name || (s.alias != "" && s.alias == name) {
			return s
		}
	}
	panic(fmt.Sprintf("setting %q is not in the settings table", name))
}

// defaultText is a setting's default as --help shows it.
func (s setting) defaultText() string {
	switch {
	case s.shown != "":
		return s.shown
	case s.def == "":
		return "unset"
	}
	return s.def
}
