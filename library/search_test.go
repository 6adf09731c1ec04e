package library

import (
	"fmt"
	"slices"
	"testing"
)

func svc(slug, label, vendor, desc string, cookies ...string) *Service {
	s := &Service{
		Slug: slug, Label: label, Vendor: vendor, Description: desc, Category: CategoryStatistics,
		ServiceURL: "https://" + slug + ".example/", PrivacyPolicyURL: "https://" + slug + ".example/privacy",
	}
	for _, c := range cookies {
		s.Cookies = append(s.Cookies, Cookie{Name: c, Match: MatchExact, Duration: "1 year", Party: "first", Storage: "cookie"})
	}
	return s
}

func slugs(svcs []*Service) []string {
	out := make([]string, len(svcs))
	for i, s := range svcs {
		out[i] = s.Slug
	}
	return out
}

func TestSearchRanking(t *testing.T) {
	t.Parallel()
	video := svc("video-player", "Video Player", "Vid", "Video hosting with viewer analytics.")
	video.Category = CategoryMarketing
	chat := svc("unrelated", "Chat Widget", "Chatty", "Live chat.", "chat_id")
	chat.Category = CategoryEssential
	c, err := FromServices([]*Service{
		svc("mixpanel", "Mixpanel", "Mixpanel Inc", "Product analytics for apps."),
		svc("zeta-pro", "Analytics Pro", "Zeta", "Dashboards."),
		svc("google-analytics", "Google Analytics", "Google LLC", "Web analytics."),
		chat, video,
		svc("analytics", "Plain", "Someone", "Counts."),
		svc("acme", "Acme", "Analytics Corp", "Pixels."),
		svc("alpha-lite", "Analytics Lite", "Alpha", "Light."),
		svc("cookie-thing", "Cookie Thing", "CT", "Sets one cookie.", "_ANALYTICS_id"),
		svc("my-analytics-x", "X", "X Corp", "Other."),
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"ANALYTICS ", []string{
			"analytics",              // exact slug
			"alpha-lite", "zeta-pro", // label prefix, by slug
			"google-analytics", "my-analytics-x", // slug or label contains
			"acme", "cookie-thing", "mixpanel", // statistics, the category "analytics" names
			"video-player"}}, // a marketing service that only mentions analytics in its description
		{"advert", []string{"video-player"}},         // a word of the marketing category
		{"viewer", []string{"video-player"}},         // description
		{"chat_id", []string{"unrelated"}},           // cookie name
		{"google llc", []string{"google-analytics"}}, // vendor, case-insensitive
		{"mixpanel", []string{"mixpanel"}},
		{"nothing-like-this", []string{}},
		{"analytics\x00", []string{"analytics", "alpha-lite", "zeta-pro", "google-analytics", "my-analytics-x", "acme", "cookie-thing", "mixpanel", "video-player"}},
		{"s.\x00dashboards", []string{}}, // never matches across two fields
		{"", []string{"acme", "alpha-lite", "analytics", "cookie-thing", "google-analytics", "mixpanel", "my-analytics-x", "unrelated", "video-player", "zeta-pro"}},
		{"   ", []string{"acme", "alpha-lite", "analytics", "cookie-thing", "google-analytics", "mixpanel", "my-analytics-x", "unrelated", "video-player", "zeta-pro"}},
	}
	for _, tc := range cases {
		if got := slugs(c.Search(tc.q)); !slices.Equal(got, tc.want) {
			t.Errorf("Search(%q) = %v, want %v", tc.q, got, tc.want)
		}
	}
	// The result is the caller's: changing it leaves the catalog alone.
	all := c.Search("")
	all[0] = nil
	if c.Services()[0] == nil {
		t.Error("Search result aliases the catalog")
	}
}

// syntheticCatalog builds n valid services with realistic field sizes, for benchmarks.
func syntheticCatalog(tb testing.TB, n int) *Catalog {
	tb.Helper()
	svcs := make([]*Service, n)
	for i := range svcs {
		s := svc(fmt.Sprintf("service-%05d", i), fmt.Sprintf("Service Number %d", i), fmt.Sprintf("Vendor %d Ltd", i%97),
			fmt.Sprintf("Service %d measures visits, traffic sources and conversions of a website, and shows them in reports for the site owner.", i),
			fmt.Sprintf("_svc%d", i), fmt.Sprintf("_svc%d_id", i), fmt.Sprintf("svc%d_session", i), "_ga")
		s.Scripts = []string{fmt.Sprintf("cdn.service%d.example/tag.js", i)}
		svcs[i] = s
	}
	c, err := FromServices(svcs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func BenchmarkSearch(b *testing.B) {
	embedded, err := Load("")
	if err != nil {
		b.Fatal(err)
	}
	catalogs := []struct {
		name string
		c    *Catalog
	}{
		{"embedded", embedded},
		{"synthetic-300", syntheticCatalog(b, 300)},
		{"synthetic-5000", syntheticCatalog(b, 5000)},
	}
	queries := []string{"google", "_ga", "analytics", "conversions", "no-such-service-anywhere", ""}
	for _, cat := range catalogs {
		for _, q := range queries {
			b.Run(fmt.Sprintf("%s/q=%s", cat.name, q), func(b *testing.B) {
				for b.Loop() {
					cat.c.Search(q)
				}
			})
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(""); err != nil {
			b.Fatal(err)
		}
	}
}
