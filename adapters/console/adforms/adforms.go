// Package adforms holds what the console's banner page reads of its forms for the IAB
// frameworks, the TCF section's (console/tcf.go) and the GPP section's beside it: lists of IDs
// as typed, and the GPP settings with the choices core offers. It knows nothing of sessions or
// rendering; core checks every value (gpp.CheckGPPSettings) when the banner is patched.
package adforms

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/gpp"
)

var idSeparators = regexp.MustCompile(`[\s,;]+`)

// IDs reads IDs separated by commas, semicolons or spaces; field names the field in the error.
func IDs(field, s string) ([]int, error) {
	out := []int{}
	for _, f := range idSeparators.Split(strings.TrimSpace(s), -1) {
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, core.Errorf(core.CodeInvalid, "%s: %q is not an ID (IDs are whole numbers, separated by commas or spaces)", field, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// GPPChoice is one value of a GPP setting as the form offers it: the API's value, a label and
// what it means.
type GPPChoice struct {
	Value, Label, Hint string
}

// GPPSection is the GPP section of the banner page: the site's settings (with their defaults)
// and the choices of each setting, in core's order.
type GPPSection struct {
	Settings   gpp.GPPSettings
	Approaches []GPPChoice
	Modes      []GPPChoice
}

// gppLabels are the form's words for core's values (gpp.Approaches, gpp.MSPAModes); docs/gpp.md
// says the same at length. A value core adds without a label here reads as itself.
var gppLabels = map[string][2]string{
	gpp.ApproachBoth:            {"Both (default)", "usnat and the visitor's state section; usnat applies for an MSPA-covered site, the state's otherwise."},
	gpp.ApproachNational:        {"National", "The MSPA's National Approach: usnat alone, for every US visitor."},
	gpp.ApproachState:           {"State by state", "The visitor's state section alone where the IAB defines one, usnat elsewhere in the US."},
	gpp.MSPAModeOptOut:          {"Opt-Out Option Mode", "You offer the opt-outs of sale, sharing and targeted advertising."},
	gpp.MSPAModeServiceProvider: {"Service Provider Mode", "Downstream parties act as your service providers and do not sell, share or target."},
}

func choices(values []string) []GPPChoice {
	out := make([]GPPChoice, len(values))
	for i, v := range values {
		l, ok := gppLabels[v]
		if !ok {
			l = [2]string{v, ""}
		}
		out[i] = GPPChoice{Value: v, Label: l[0], Hint: l[1]}
	}
	return out
}

// GPPSectionOf returns the section for the stored settings s.
func GPPSectionOf(s gpp.GPPSettings) GPPSection {
	return GPPSection{Settings: s.Clean(), Approaches: choices(gpp.Approaches()), Modes: choices(gpp.MSPAModes())}
}

// ParseGPP reads the GPP section's form: gppEnabled and gppMspaCovered (checkboxes), gppApproach
// and gppMspaMode (radio buttons). A value that is not one of core's is passed on for core to
// refuse, with the API's field name.
func ParseGPP(r *http.Request) gpp.GPPSettings {
	return gpp.GPPSettings{Enabled: r.PostFormValue("gppEnabled") == "on", MSPACoveredTransaction: r.PostFormValue("gppMspaCovered") == "on",
		Approach: r.PostFormValue("gppApproach"), MSPAMode: r.PostFormValue("gppMspaMode")}
}
