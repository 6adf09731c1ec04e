package httpapi_test

import (
	"strings"
	"testing"
)

// TestConsentBodyOnePass: the consent POST's body is checked, validated and decoded in one
// pass (consentBody.UnmarshalJSON) instead of by checkInput and huma; it answers what they
// answered, message for message (the table was recorded from them), and decodes what
// encoding/json decoded.
func TestConsentBodyOnePass(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pk := e.site()
	pub := "/api/v1/public/" + pk + "/consent"
	long := func(s string, n int) string { return strings.Repeat(s, n) }
	for _, c := range []struct{ body, want string }{ // want: the error message, or the visitorId stored
		{`{"categories":{"statistics":true},"consentVersion":1,"visitorId":"v1","language":"de","runtimeVersion":"1.4.0","pageUrl":"https://shop.example/p?x=1","gpc":true,"doNotSell":true}`, "=v1"},
		{`{"categories":{},"consentVersion":1,"visitorId":null,"action":null,"gpc":null,"language":null,"doNotSell":null,"pageUrl":null,"runtimeVersion":null}`, "="},
		{`{"categories":{},"consentVersion":1,"visitorId":"` + long("é", 100) + `"}`, "=" + long("é", 100)},
		{`{"categories":{},"consentVersion":1,"visitorId":"a\tb"}`, "=a\tb"},
		{`{"categories":{},"consentVersion":1,"visitorId":"a\ud800b"}`, "=a\ufffdb"},
		{"{\"categories\":{},\"consentVersion\":1,\"visitorId\":\"a\xffb\"}", "=a\ufffdb"},
		{`{"categories":{},"consentVersion":1,"\u0076isitorId":"esc"}`, "=esc"},
		{`{"categories":{},"consentVersion":1,"visitorId":"x","visitorId":"last"}`, "=last"},
		{`{"categories":null,"consentVersion":1}`, "validation failed: categories: expected object"},
		{`{"categories":[],"consentVersion":1}`, "validation failed: categories: expected object"},
		{`{"consentVersion":1}`, "validation failed: expected required property categories to be present"},
		{`{}`, "validation failed: expected required property categories to be present; expected required property consentVersion to be present"},
		{`{"categories":{},"consentVersion":null}`, "validation failed: consentVersion: expected integer"},
		{`{"categories":{},"consentVersion":0}`, "validation failed: consentVersion: expected number >= 1"},
		{`{"categories":{},"consentVersion":1e7}`, "validation failed: consentVersion: expected number <= 1e+06"},
		{`{"categories":{},"consentVersion":"1"}`, "validation failed: consentVersion: expected integer"},
		{`{"categories":{},"consentVersion":1.0}`, "validation failed: consentVersion: expected integer"},
		{`{"categories":{},"consentVersion":1,"extra":1}`, "validation failed: extra: unexpected property"},
		{`{"categories":{},"consentVersion":1,"VisitorId":"x","extra":2}`, `VisitorId: unknown field (did you mean "visitorId"?)`},
		{`{"categories":{},"consentVersion":1,"CATEGORIES":{}}`, `CATEGORIES: unknown field (did you mean "categories"?)`},
		{`{"categories":{},"consentVersion":1,"visitorId":""}`, "validation failed: visitorId: expected length >= 1"},
		{`{"categories":{},"consentVersion":1,"visitorId":1}`, "validation failed: visitorId: expected string"},
		{`{"categories":{},"consentVersion":1,"visitorId":"` + long("é", 101) + `"}`, "validation failed: visitorId: expected length <= 100"},
		{`{"categories":{},"consentVersion":1,"visitorId":"` + long("v", 101) + `","action":"no"}`, `validation failed: action: expected value to be one of "accept_all, reject_all, custom, gpc"; visitorId: expected length <= 100`},
		{`{"categories":{"statistics":null},"consentVersion":1}`, "validation failed: categories.statistics: expected boolean"},
		{`{"categories":{},"consentVersion":1,"gpc":"true"}`, "validation failed: gpc: expected boolean"},
		{`{"categories":{},"consentVersion":1,"language":"` + long("l", 36) + `"}`, "validation failed: language: expected length <= 35"},
		{`{"categories":{},"consentVersion":1,"pageUrl":"` + long("p", 501) + `"}`, "validation failed: pageUrl: expected length <= 500"},
		{`{"categories":{},"consentVersion":1,"visitorId":"a\u0000b"}`, "visitorId: must not contain control characters (found NUL at offset 1)"},
		{`{"categories":{},"consentVersion":1,"extra":2,"visitorId":"\u0001"}`, "visitorId: must not contain control characters (found U+0001 at offset 0)"},
		{`{"categories":{"b\u0001":true,"a\u0001":true},"consentVersion":1}`, "categories key: must not contain control characters (found U+0001 at offset 1)"},
		{`{"categories":{},"consentVersion":1,"visitorId":"\u0001","action":"\u0002"}`, "action: must not contain control characters (found U+0002 at offset 0)"},
		{`{"categories":{},"consentVersion":1,"extra":{"k":["\u0003"]}}`, "extra.k[0]: must not contain control characters"},
		{`{"categories":{},"consentVersion":1,"a\u0004":1}`, "body key: must not contain control characters"},
		{`{"categories":{},"consentVersion":1}{}`, "validation failed: invalid character '{' after top-level value"},
		{`[]`, "validation failed: expected object"},
		{`null`, "validation failed: expected object"},
		{`{"categories":{"nope":true},"consentVersion":1}`, "categories.nope: unknown category"},
		{`{"categories":{},"consentVersion":1,"gvlVersion":0}`, "validation failed: gvlVersion: expected number >= 1"},
		{`{"categories":{},"consentVersion":1,"tcString":1}`, "validation failed: tcString: expected string"},
		{`{"categories":{},"consentVersion":1,"acString":"` + long("a", 8193) + `"}`, "validation failed: acString: expected length <= 8192"},
		{`{"categories":{},"consentVersion":1,"tcString":"CQuUTiAQuUTiA"}`, "tcString: TCF is not enabled on this site"},
	} {
		r := e.raw("POST", pub, "", c.body)
		if v, ok := strings.CutPrefix(c.want, "="); ok {
			got := e.want(r, 201).obj(t)["visitorId"].(string)
			if v != "" && got != v {
				t.Errorf("%s: visitorId %q, want %q", c.body, got, v)
			}
			continue
		}
		msg := e.want(r, 400, "validation_error").obj(t)["error"].(map[string]any)["message"].(string)
		if !strings.HasPrefix(msg, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.body, msg, c.want)
		}
	}
}
