package core_test

import (
	"testing"

	"github.com/consentd/consentd/core"
)

func TestPublicPaths(t *testing.T) {
	for _, res := range []string{core.PublicLoader, core.PublicConfigPath, core.PublicConsentPath, core.PublicDeclaration, core.PublicCookiesPage} {
		p := core.PublicPath("pk_a b", res)
		got, key, ok := core.ParsePublicPath("/proxy" + p)
		if !ok || got != res || key != "pk_a b" {
			t.Errorf("ParsePublicPath(%q) = %q, %q, %v", p, got, key, ok)
		}
	}
	if got, _, ok := core.ParsePublicPath(core.PublicPath("", core.PublicRuntime)); !ok || got != core.PublicRuntime {
		t.Errorf("runtime path not recognised: %q %v", got, ok)
	}
	for _, p := range []string{"/api/v1/public/", "/api/v1/public/pk/other.js", "/api/v1/public//config", "/api/v1/public/a/b/config", "/static/banner.js", "/api/v1/sites"} {
		if res, _, ok := core.ParsePublicPath(p); ok {
			t.Errorf("ParsePublicPath(%q) = %q, want not public", p, res)
		}
	}
	if r := core.PublicRoute(core.PublicConfigPath); r != "/public/{projectKey}/config" {
		t.Errorf("PublicRoute(config) = %q", r)
	}
}
