package bannerjs

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/tdewolff/minify/v2"
	cssmin "github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// The runtime's sources: ES modules with explicit imports (the *.test.mjs beside them are their
// node unit tests, which the build never reads) and the stylesheets they import.
//
//go:embed *.js *.css
var sources embed.FS

// bundleSpec is one script the build makes: esbuild bundles the module entry and everything
// it imports into one strict closure.
type bundleSpec struct {
	name  string // what later bundles know its version by (consentd:build's Version.<name>)
	entry string // its entry module
}

// bundles are the scripts the build makes, in order: a bundle may import the version of one
// built before it (the runtime names the version of the lazily loaded part it loads).
var bundles = []bundleSpec{
	// The lazily loaded part of the runtime (core.PublicRuntimeMore), with banner-more.css.
	{name: "more", entry: "more.js"},
	// The runtime (core.PublicRuntime, and the loader's tail), with banner.css.
	{name: "runtime", entry: "boot.js"},
	// The TCF module (core.PublicTCFModule), with tcf.css.
	{name: "tcf", entry: "tcf.js"},
	// The __tcfapi stub the loader inlines where the TCF applies (TCFStub).
	{name: "tcfstub", entry: "tcfstub.js"},
	// The __gpp API the loader inlines where GPP sections apply (GPPAPI).
	{name: "gpp", entry: "gpp.js"},
	// The A/B test variant picker the loader inlines where an experiment runs (ExperimentScript).
	{name: "experiment", entry: "experiment.js"},
}

// The modules the build makes up (esbuild resolves them through buildPlugin), in TypeScript so
// that their strings are enums, which esbuild writes in place of every use (as the
// placeholders did, at no cost to the first view's bytes):
//   - consentd:core, what the runtime takes from core: VENDORS (core.VendorConsents, the
//     defaults the runtime sends before it has a configuration) and the names of the site's
//     public resources it fetches (Public.config, .consent, .declaration, .more; EVENTS apart);
//   - consentd:build, Version.own (the bundle's own version, a hash of its output stamped after
//     the build) and Version.<name> for each bundle built before.
const (
	coreModule  = "consentd:core"
	buildModule = "consentd:build"
)

// versionPlaceholder stands for a bundle's version until its output is hashed.
const versionPlaceholder = `"__CONSENTD_VERSION__"`

// bundle is a built script in both encodings.
type bundle struct {
	version  string
	plain    []byte
	gz       []byte
	etag     string // strong ETag of plain
	gzETag   string // strong ETag of gz (another representation, so another validator)
	minified bool
}

var (
	buildOnce sync.Once
	built     map[string]*bundle
)

// bundled returns the built bundle name, building them all on first use. A build error (which
// the package tests rule out for the embedded sources) gives every bundle a script saying so
// rather than failing the service.
func bundled(name string) *bundle {
	buildOnce.Do(func() {
		var err error
		if built, err = build(bundles); err != nil {
			built = map[string]*bundle{}
			for _, s := range bundles {
				built[s.name] = finish([]byte("console.error('consentd: banner runtime missing from build');\n"), false)
			}
		}
	})
	return built[name]
}

// build makes the bundles specs, in order: esbuild bundles each entry with its imports (the
// stylesheets minified and inlined, see stylesheets; consentd:core and consentd:build made
// up), tdewolff/minify minifies the result, and the version is stamped and the script
// compressed. A minifier error falls back to the bundled, readable script.
//
// esbuild minifies syntax (and shortens the shared state's property names, see state.js);
// tdewolff/minify does the rest: on the first view's runtime its whitespace and identifiers
// come out about 90 bytes smaller gzipped than esbuild's own (measured: 9,850 against 9,936),
// bytes the first view's budget counts.
func build(specs []bundleSpec) (map[string]*bundle, error) {
	coreTS, err := coreModuleTS()
	if err != nil {
		return nil, err
	}
	m := minify.New()
	m.AddFunc("text/css", cssmin.Minify)
	m.AddFunc("text/javascript", js.Minify)
	out := map[string]*bundle{}
	for _, s := range specs {
		buildTS := "export enum Version { own = " + versionPlaceholder
		for _, name := range sortedKeys(out) {
			buildTS += ", " + name + " = " + string(quote(out[name].version))
		}
		buildTS += " }\n"
		res := api.Build(api.BuildOptions{
			EntryPoints: []string{s.entry},
			Bundle:      true,
			// An ES module's code, in one closure of its own, strict as modules are: the loader
			// puts the site's configuration (and the TCF stub, the GPP API) in front of it.
			Format:            api.FormatESModule,
			Banner:            map[string]string{"js": "(function(){'use strict';"},
			Footer:            map[string]string{"js": "})();"},
			Target:            api.ES2017,
			Charset:           api.CharsetUTF8,
			MinifySyntax:      true,
			MinifyIdentifiers: true,
			MangleProps:       "_$",
			LogLevel:          api.LogLevelSilent,
			Plugins:           []api.Plugin{buildPlugin(m, coreTS, buildTS)},
		})
		// The sources are fixed at compile time: a warning (a duplicate key, a suspicious
		// comparison, a module that is not one) is a mistake in them, as an error is.
		if problems := append(res.Errors, res.Warnings...); len(problems) > 0 {
			return nil, fmt.Errorf("bundle %s: %w", s.name, messages(problems))
		}
		if len(res.OutputFiles) != 1 {
			return nil, fmt.Errorf("bundle %s: %d output files", s.name, len(res.OutputFiles))
		}
		code := res.OutputFiles[0].Contents
		minified := true
		if j, err := m.Bytes("text/javascript", code); err == nil {
			code = j
		} else {
			minified = false
		}
		out[s.name] = finish(code, minified)
	}
	return out, nil
}

// finish stamps the version (a hash of code) where consentd:build's VERSION is, and compresses.
func finish(code []byte, minified bool) *bundle {
	b := &bundle{minified: minified}
	sum := sha256.Sum256(code)
	b.version = hex.EncodeToString(sum[:6])
	// The version is part of the script (window.consentd.version) and of the ETag.
	b.plain = bytes.ReplaceAll(code, []byte(versionPlaceholder), quote(b.version))
	sum = sha256.Sum256(b.plain)
	b.etag = `"` + hex.EncodeToString(sum[:12]) + `"`
	b.gzETag = `"` + hex.EncodeToString(sum[:12]) + `-gz"`
	b.gz = Gzip(b.plain)
	return b
}

// buildPlugin resolves the modules from the embedded sources (css: a stylesheet as the
// JavaScript value stylesheets makes, minified by m) and the made-up modules.
func buildPlugin(m *minify.M, coreTS, buildTS string) api.Plugin {
	return api.Plugin{Name: "consentd", Setup: func(b api.PluginBuild) {
		b.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
			if a.Path == coreModule || a.Path == buildModule {
				return api.OnResolveResult{Path: a.Path, Namespace: "consentd"}, nil
			}
			return api.OnResolveResult{Path: path.Clean(a.Path), Namespace: "src"}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "consentd"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			src := coreTS
			if a.Path == buildModule {
				src = buildTS
			}
			return api.OnLoadResult{Contents: &src, Loader: api.LoaderTS}, nil
		})
		b.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "src"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
			raw, err := sources.ReadFile(a.Path)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			src := string(raw)
			if strings.HasSuffix(a.Path, ".css") {
				v, err := stylesheets(raw, m)
				if err != nil {
					return api.OnLoadResult{}, err
				}
				src = "export default " + string(v) + ";\n"
			}
			return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
		})
	}}
}

// coreModuleTS is the source of consentd:core.
func coreModuleTS() (string, error) {
	vendors, err := json.Marshal(banner.VendorConsents())
	if err != nil {
		return "", err
	}
	return "export var VENDORS = " + string(vendors) + ";\n" +
		// not in the enum: an enum's members are in every bundle, this only in more.js's
		"export var EVENTS = " + string(quote(core.PublicEventsPath)) + ";\n" +
		"export enum Public { config = " + string(quote(core.PublicConfigPath)) +
		", consent = " + string(quote(core.PublicConsentPath)) +
		", declaration = " + string(quote(core.PublicDeclaration)) +
		", more = " + string(quote(core.PublicRuntimeMore)) + " }\n", nil
}

func messages(ms []api.Message) error {
	var errs []error
	for _, m := range ms {
		where := ""
		if m.Location != nil {
			where = fmt.Sprintf("%s:%d: ", m.Location.File, m.Location.Line)
		}
		errs = append(errs, errors.New(where+m.Text))
	}
	return errors.Join(errs...)
}

func sortedKeys(m map[string]*bundle) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sheetLine starts a separately served sheet in a stylesheet: "/* sheet: NAME */" on a line.
var sheetLine = regexp.MustCompile(`(?m)^/\* sheet: ([a-z_]+) \*/\n`)

// stylesheets renders the stylesheet src as a JavaScript value, minified by m: a string, or,
// when src has "sheet:" lines, an object with its rules before the first (key "b") and those of
// each sheet under its name, which the runtime parses only when it needs them (the banner's
// templates: a first view parses only the chosen one's rules). The runtime adopts them into its
// Shadow DOMs as constructable stylesheets, which strict Content-Security-Policies allow.
func stylesheets(src []byte, m *minify.M) ([]byte, error) {
	at := sheetLine.FindAllSubmatchIndex(src, -1)
	if len(at) == 0 {
		c, err := m.Bytes("text/css", src)
		return quote(string(c)), err
	}
	var out bytes.Buffer
	out.WriteString("{")
	name, from := "b", 0
	for i := 0; i <= len(at); i++ {
		end := len(src)
		if i < len(at) {
			end = at[i][0]
		}
		c, err := m.Bytes("text/css", src[from:end])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString(",")
		}
		out.Write(quote(name))
		out.WriteString(":")
		out.Write(quote(string(c)))
		if i < len(at) {
			name, from = string(src[at[i][2]:at[i][3]]), at[i][1]
		}
	}
	out.WriteString("}")
	return out.Bytes(), nil
}

// quote renders s as a JavaScript string literal.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
