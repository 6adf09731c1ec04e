package bannerjs

import (
	"regexp"
	"strings"
	"testing"
)

// TestExperimentScript: experiment.js builds, ExperimentScript puts the experiment in place of
// its placeholder, and the cookie it reads the kept variant from is the runtime's (site.js's
// COOKIE).
func TestExperimentScript(t *testing.T) {
	t.Parallel()
	s := string(ExperimentScript([]byte(`{"i":"abc","v":[["a",50,{}],["b",50,{}]]}`)))
	if strings.Contains(s, "__CONSENTD_X__") || !strings.Contains(s, `{"i":"abc"`) || !strings.Contains(s, "__consentdBoot") {
		t.Fatalf("ExperimentScript: %s", s)
	}
	site, err := sources.ReadFile("site.js")
	if err != nil {
		t.Fatal(err)
	}
	x, err := sources.ReadFile("experiment.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export var COOKIE = '([^']+)'`).FindSubmatch(site)
	if m == nil || !strings.Contains(string(x), "parseCookie(document.cookie, '"+string(m[1])+"')") {
		t.Fatalf("experiment.js does not read the runtime's cookie %q", m)
	}
}
