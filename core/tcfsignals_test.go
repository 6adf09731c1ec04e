package core_test

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/i18n"
	"github.com/consentd/consentd/core/tcf"
)

func TestTCFSignalTable(t *testing.T) {
	tab := tcf.TCFSignalTable()
	all := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	for _, c := range []struct {
		name              string
		purposes, vendors []int
		cats, gcm         string
	}{
		{"everything", all, []int{tcf.GoogleVendorID}, "map[marketing:true statistics:true]",
			"map[ad_personalization:true ad_storage:true ad_user_data:true analytics_storage:true]"},
		{"nothing", nil, nil, "map[marketing:false statistics:false]",
			"map[ad_personalization:false ad_storage:false ad_user_data:false analytics_storage:false]"},
		{"all purposes, Google refused", all, []int{28}, "map[marketing:true statistics:true]",
			"map[ad_personalization:false ad_storage:false ad_user_data:false analytics_storage:true]"},
		{"storage and measurement only", []int{1, 8, 9}, []int{tcf.GoogleVendorID}, "map[marketing:false statistics:true]",
			"map[ad_personalization:false ad_storage:true ad_user_data:false analytics_storage:true]"},
	} {
		cats, gcm := tab.Grants(c.purposes, c.vendors)
		if got := fmtMap(cats); got != c.cats {
			t.Errorf("%s: categories %s, want %s", c.name, got, c.cats)
		}
		if got := fmtMap(gcm); got != c.gcm {
			t.Errorf("%s: Consent Mode %s, want %s", c.name, got, c.gcm)
		}
	}
	// A fresh copy each time: a caller's change does not reach the table.
	tab.Categories["statistics"] = tcf.TCFNeed{}
	if len(tcf.TCFSignalTable().Categories["statistics"].Purposes) == 0 {
		t.Error("TCFSignalTable returned a shared map")
	}
}

func fmtMap(m map[string]bool) string {
	out := "map["
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			out += " "
		}
		if m[k] {
			out += k + ":true"
		} else {
			out += k + ":false"
		}
	}
	return out + "]"
}

// TestTCFTexts: every language of the TCF layers says everything English says, with the same
// placeholders, and the buttons' labels come from the banner's built-in texts.
func TestTCFTexts(t *testing.T) {
	en := banner.TCFTexts("en")
	ph := regexp.MustCompile(`\{\w+\}`)
	for _, lang := range i18n.Languages() {
		if lang == "en" {
			continue
		}
		tr := banner.TCFTexts(lang)
		own, ok := tcf.TcfTexts[strings.ToLower(lang)]
		if !ok {
			t.Errorf("%s: the TCF layers have no texts of their own", lang)
		}
		for k := range tcf.TcfTexts["en"] {
			if own[k] == "" {
				t.Errorf("%s: %s missing (it would fall back to English)", lang, k)
			}
		}
		if len(own) != len(tcf.TcfTexts["en"]) {
			t.Errorf("%s: %d TCF texts, English has %d", lang, len(own), len(tcf.TcfTexts["en"]))
		}
		// The notice names the second layer's button by its label.
		if !strings.Contains(tr["tcfLegitimateInterestNotice"], tr["tcfManageLabel"]) {
			t.Errorf("%s: the legitimate interest notice does not name %q", lang, tr["tcfManageLabel"])
		}
		for _, k := range []string{"tcfIntro", "tcfSecondIntro", "tcfLegitimateInterestNotice", "tcfCookieMaxAge", "tcfNonCookieAccess"} {
			if tr[k] == en[k] {
				t.Errorf("%s: %s still English", lang, k)
			}
		}
		for k, v := range en {
			if tr[k] == "" {
				t.Errorf("%s: %s missing", lang, k)
			}
			if !slices.Equal(ph.FindAllString(v, -1), ph.FindAllString(tr[k], -1)) {
				t.Errorf("%s: %s has placeholders %q, English %q", lang, k, ph.FindAllString(tr[k], -1), ph.FindAllString(v, -1))
			}
		}
		if tr["tcfManageLabel"] == en["tcfManageLabel"] || tr["acceptLabel"] == en["acceptLabel"] {
			t.Errorf("%s: not translated: %q, %q", lang, tr["tcfManageLabel"], tr["acceptLabel"])
		}
	}
	if en["acceptLabel"] == "" || en["rejectLabel"] == "" || en["saveLabel"] == "" || len(en) < 30 {
		t.Errorf("English TCF texts incomplete: %d keys", len(en))
	}
	if banner.TCFTexts("xx")["tcfHeadline"] != en["tcfHeadline"] {
		t.Error("an unknown language does not fall back to English")
	}
}
