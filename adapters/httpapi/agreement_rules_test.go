package httpapi_test

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi"
)

// schemaFormats is every string format the request bodies of the served document state, keyed
// "where" as schemaLimits keys its limits. A format in the document missing here fails the
// test as one that differs does; TestSchemaRuleAgreement shows that core refuses what each
// format refuses.
var schemaFormats = map[string]string{
	"ApiKeyCreateBody.siteIds[]":       "uuid",
	"BannerPatchBody.cookiePolicyUrl":  "uri",
	"BannerPatchBody.logoUrl":          "uri",
	"BannerPatchBody.privacyPolicyUrl": "uri",
	"ConsentBody.pageUrl":              "uri",
	"ScanTriggerBody.url":              "uri",
	"ServiceCreateBody.serviceUrl":     "uri",
	"SiteCreateBody.url":               "uri",
	"SitePatchBody.digestEmails[]":     "email",
	"SitePatchBody.url":                "uri",
	"SsoPutBody.issuer":                "uri",
	"WebhookCreateBody.url":            "uri",
	"WebhookPatchBody.url":             "uri",
}

// conditionalRequired are the optional properties whose description says when they are
// required ("Required the first time …", "Required when …"): the schema cannot say it.
var conditionalRequired = map[string]string{
	"PUT /sso clientSecret": "when the organization has no single sign-on yet",
}

// requiredWhen finds a description's statement of a conditional requirement.
var requiredWhen = regexp.MustCompile(`(^|\. )Required (the first time|when|unless|if)\b`)

// violating returns a value that breaks the rule keyword states in s, and whether there is one.
func violating(keyword string, s map[string]any) (any, bool) {
	switch keyword {
	case "minItems":
		n, _ := s["minItems"].(float64)
		if n < 1 {
			return nil, false
		}
		return make([]any, 0), n == 1 // fewer items, of a type we need not guess: none
	case "format":
		if !hasType(s, "string") {
			return nil, false
		}
		switch s["format"] {
		case "uri":
			return "not a uri", true
		case "email":
			return "not an email", true
		case "uuid":
			return "not-a-uuid", true
		}
	case "pattern":
		p, ok := s["pattern"].(string)
		if !ok {
			return nil, false
		}
		re := regexp.MustCompile(p)
		for _, v := range []string{"Plain text 1", "~", "!"} {
			if !re.MatchString(v) {
				return v, true
			}
		}
	}
	return nil, false
}

// lastName is the last property name of a field path (regionRules[0].regions[0]: regions).
func lastName(path string) string {
	path = regexp.MustCompile(`\[[0-9]+\]`).ReplaceAllString(path, "")
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// TestSchemaRuleAgreement compares, for every field of every request body of the served
// document, the rules of form the document states (minItems, format, pattern, and conditional
// requirements in the description) with core's validators, both ways:
//   - every format of the document is in schemaFormats (minItems and pattern are in
//     schemaLimits, with their core constants);
//   - on a server that skips the schema (WithoutBodySchema), a value breaking each rule, laid on
//     a valid body, is refused by core with a 400 naming the field: the validator enforces
//     what the document says;
//   - on the served API, an empty array where the document states no minItems, and a valid
//     body without an optional property whose description states no conditional requirement,
//     are not refused naming that field: the validator enforces nothing the document omits;
//     and a conditional requirement the description states is enforced.
func TestSchemaRuleAgreement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var doc map[string]any
	if err := json.Unmarshal(e.want(e.raw("GET", "/api/v1/openapi.json", "", ""), 200).body, &doc); err != nil {
		t.Fatal(err)
	}
	targets := hostileFixture(t, e)
	// TCF and GPP on, so that the consent strings reach the checks of their form
	site := strings.TrimPrefix(targets["/sites/{id}"], "/api/v1/sites/")
	e.want(e.do("PATCH", "/api/v1/sites/"+site+"/banner", map[string]any{
		"tcf": map[string]any{"enabled": true, "vendorIds": []any{755, 1}, "publisherCountryCode": "FR", "googleAtpIds": []any{39}},
		"gpp": map[string]any{"enabled": true}}), 200)

	// the same core, served without huma's body validation
	bare := *e
	srv := httptest.NewServer(httpapi.New(httpapi.WithoutBodySchema(httpapi.Config{UseCases: httpapi.FromCore(e.m), Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), CountryHeader: "X-Country"})))
	t.Cleanup(srv.Close)
	bare.srv = srv

	// Documented formats are the table's.
	served := map[string]string{}
	for name, s := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		if strings.HasSuffix(name, "Body") || strings.HasSuffix(name, "In") || strings.HasSuffix(name, "Request") {
			collectFormats(name, s.(map[string]any), served) // the request bodies and their parts
		}
	}
	for k, v := range served {
		if want, ok := schemaFormats[k]; !ok || want != v {
			t.Errorf("%s format %q in the document; schemaFormats says %q", k, v, want)
		}
	}
	for k, v := range schemaFormats {
		if _, ok := served[k]; !ok && v != "" {
			t.Errorf("%s format %q is not in the document", k, v)
		}
	}

	ops := bodyOps(t, e, doc, targets)
	// Conditional requirements first, while the organization has no single sign-on.
	seenCond := map[string]bool{}
	for _, op := range ops {
		base, _ := baseBodies[op.method+" "+op.path].(map[string]any)
		props, required := properties(doc, op.schema)
		names := make([]string, 0, len(base))
		for n := range base {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, name := range names {
			if required[name] {
				continue
			}
			where := op.method + " " + op.path + " " + name
			without := map[string]any{}
			for k, v := range base {
				if k != name {
					without[k] = v
				}
			}
			desc, _ := props[name]["description"].(string)
			documented := requiredWhen.MatchString(desc)
			r := e.raw(op.method, op.target, op.key, mustJSON(without))
			refused := r.status == 400 && strings.Contains(string(r.body), name+":")
			switch {
			case documented && !refused:
				t.Errorf("%s: its description says it is required (%q), but the server accepts a body without it: %d %s", where, desc, r.status, r.body)
			case !documented && refused:
				t.Errorf("%s: the server requires it, but neither the schema nor its description says so: %s", where, r.body)
			case documented:
				seenCond[where] = true
				if _, ok := conditionalRequired[where]; !ok {
					t.Errorf("%s: a conditional requirement missing from conditionalRequired", where)
				}
			}
		}
	}
	for where := range conditionalRequired {
		if !seenCond[where] {
			t.Errorf("%s: listed in conditionalRequired, but its description does not say when it is required, or no probe saw it", where)
		}
	}

	rules, empties := 0, 0
	for _, op := range ops {
		base := baseBodies[op.method+" "+op.path]
		for _, f := range bodyFields(doc, op.schema, 0) {
			if f.path == "" {
				continue
			}
			where := op.method + " " + op.path + " " + f.path
			name := lastName(f.path)
			for _, kw := range []string{"minItems", "format", "pattern"} {
				v, ok := violating(kw, f.schema)
				if !ok {
					continue
				}
				rules++
				r := bare.raw(op.method, op.target, op.key, mustJSON(lay(base, f.build(v))))
				if r.status != 400 || !strings.Contains(string(r.body), name) {
					t.Errorf("%s: the document says %s %v, but core accepts %s: %d %s", where, kw, f.schema[kw], mustJSON(v), r.status, r.body)
				}
			}
			if hasType(f.schema, "array") && f.schema["minItems"] == nil {
				empties++
				r := e.raw(op.method, op.target, op.key, mustJSON(lay(base, f.build([]any{}))))
				if r.status == 400 && strings.Contains(string(r.body), name+":") {
					t.Errorf("%s: the server refuses an empty array, but the document states no minItems: %s", where, r.body)
				}
			}
		}
	}
	if rules < 20 || empties < 8 {
		t.Fatalf("only %d rules and %d arrays probed: the walk of the document found too little", rules, empties)
	}
}

// collectFormats adds every string format of schema (its properties, map values and items) to
// out under "where" (integer formats are huma's, not a rule of form).
func collectFormats(where string, s map[string]any, out map[string]string) {
	if f, ok := s["format"].(string); ok && hasType(s, "string") {
		out[where] = f
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for n, p := range props {
			collectFormats(where+"."+n, p.(map[string]any), out)
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		collectFormats(where+".*", ap, out)
	}
	if it, ok := s["items"].(map[string]any); ok {
		collectFormats(where+"[]", it, out)
	}
}

// properties returns a body schema's properties and which of them are required.
func properties(doc, schema map[string]any) (map[string]map[string]any, map[string]bool) {
	if ref, ok := schema["$ref"].(string); ok {
		schema, _ = doc["components"].(map[string]any)["schemas"].(map[string]any)[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
	}
	props := map[string]map[string]any{}
	for n, p := range schema["properties"].(map[string]any) {
		props[n] = p.(map[string]any)
	}
	required := map[string]bool{}
	for _, n := range asSlice(schema["required"]) {
		required[n.(string)] = true
	}
	return props, required
}
