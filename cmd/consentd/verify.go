package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
	bannerpkg "github.com/consentd/consentd/core/banner"
	corescan "github.com/consentd/consentd/core/scan"
	"github.com/consentd/consentd/core/verifier"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/library"
)

// Exit statuses of `consentd verify`: 0 no finding reaches --fail-on; exitFindings when one
// does; exitFailed for a usage error or a verification that could not run.
const (
	exitFindings = 1
	exitFailed   = 2
)

// exitError ends the command with a status; a nil err prints nothing more.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func failed(err error) error { return &exitError{code: exitFailed, err: err} }

const verifyUsage = "one URL to verify (usage: consentd verify [flags] URL; 'consentd verify --help' lists the flags)"

// verify runs a verification scan of a site in a local browser, evaluates the compliance rules
// on it and on the configuration the site's consentd runtime serves, and prints the report.
func verify(ctx context.Context, args []string, stdout io.Writer) error {
	var r reach
	var projectKey, failOn string
	var asJSON bool
	var categories []string
	var apiURL, apiKey, siteID, place string
	fs := newFlags("verify")
	r.register(fs)
	bind(fs, "project-key", &projectKey)
	bind(fs, "api-url", &apiURL)
	bind(fs, "api-key", &apiKey)
	bind(fs, "site", &siteID, "with --api-key: the site's ID")
	bind(fs, "place", &place)
	bind(fs, "fail-on", &failOn)
	bind(fs, "json", &asJSON)
	bind(fs, "categories", &categories)
	urls, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	errs := []error{err}
	if len(urls) != 1 {
		errs = append(errs, errors.New(verifyUsage))
	}
	if !slices.Contains(corescan.Severities(), failOn) {
		errs = append(errs, fmt.Errorf("--fail-on (CONSENTD_FAIL_ON) %q: must be one of %s", failOn, strings.Join(corescan.Severities(), ", ")))
	}
	if apiKey != "" && (apiURL == "" || siteID == "") {
		errs = append(errs, errors.New("--api-key needs --api-url and --site"))
	}
	if place != "" && apiKey == "" {
		errs = append(errs, errors.New("--place needs --api-key: the server believes a chosen place only with the credential it issues"))
	}
	opts, err := r.options(urls)
	if err = errors.Join(append(errs, err)...); err != nil {
		return failed(err)
	}
	vo := crawler.VerifyOptions{ProjectKey: projectKey, Categories: categories, MaxItems: core.MaxVerifiedItems}
	if apiKey != "" {
		issued, err := issueVerifierCredential(ctx, apiURL, apiKey, siteID)
		if err != nil {
			return failed(err)
		}
		vo.Credential, vo.Places = issued.Credential, issued.Places
		if place != "" {
			vo.Places = slices.DeleteFunc(vo.Places, func(p core.RulePlace) bool { return p.Location != place && p.Rule != place })
			if len(vo.Places) == 0 {
				var names []string
				for _, p := range issued.Places {
					names = append(names, p.Rule+" ("+p.Location+")")
				}
				return failed(fmt.Errorf("--place %q: no regional rule of the site covers it or is named so; the rules: %s", place, strings.Join(names, ", ")))
			}
		}
	}
	catalog, err := library.Load(r.libDir)
	if err != nil {
		return failed(err)
	}
	engine, err := app.NewEngine(catalog)
	if err != nil {
		return failed(err)
	}
	browsers := app.NewBrowsers(r.set)
	defer browsers.Close()
	res, err := engine.Verify(ctx, opts, browsers, vo)
	if err != nil {
		return failed(err)
	}
	v := res.Verification
	var in *corescan.ComplianceInput
	var notes []string
	switch {
	case v.Banner != core.BannerConsentd:
	case len(res.PublicConfig) > 0:
		var cfg bannerpkg.PublicConfig
		if err := json.Unmarshal(res.PublicConfig, &cfg); err != nil {
			return failed(fmt.Errorf("the runtime's public configuration is not valid: %w", err))
		}
		in = corescan.ComplianceInputFromPublicConfig(&cfg)
	default:
		notes = append(notes, "the configuration rules were not checked: "+res.PublicConfigError)
	}
	rep := corescan.EvaluateCompliance(in, v, "", catalog, time.Now())
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return failed(err)
		}
	} else {
		printReport(stdout, urls[0], v, rep, notes)
	}
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "consentd verify:", n)
	}
	if rep.Reaches(failOn) {
		return &exitError{code: exitFindings}
	}
	return nil
}

// printReport writes the report for a reader: what was verified, the findings by severity with
// their evidence and fix, and the summary per rule family.
func printReport(w io.Writer, site string, v *core.Verification, rep *corescan.ComplianceReport, notes []string) {
	fmt.Fprintf(w, "consentd verify %s\n", site)
	var states []string
	for _, s := range v.States {
		states = append(states, s.State)
	}
	pages := 0
	if len(v.States) > 0 {
		pages = len(v.States[0].Pages)
	}
	project := ""
	if v.ProjectKey != nil {
		project = *v.ProjectKey
	}
	banner := "consentd's banner (project " + project + ")"
	if v.Banner != core.BannerConsentd {
		banner = "no consentd banner"
	}
	fmt.Fprintf(w, "%s; %d page(s) in each of the states %s\n", banner, pages, strings.Join(states, ", "))
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if rep.Compliant {
		fmt.Fprintln(w, "\nCompliant: no error finding.")
	} else {
		fmt.Fprintln(w, "\nNot compliant: see the errors below.")
	}
	for _, sev := range corescan.Severities() {
		var list []corescan.Finding
		for _, f := range rep.Findings {
			if f.Severity == sev {
				list = append(list, f)
			}
		}
		if len(list) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (%d)\n", strings.ToUpper(sev[:1])+sev[1:]+"s", len(list))
		for _, f := range list {
			fmt.Fprintf(w, "  [%s] %s\n", f.RuleID, f.Title)
			if f.Detail != "" {
				fmt.Fprintf(w, "    %s\n", f.Detail)
			}
			if ev := evidence(f.Evidence); ev != "" {
				fmt.Fprintf(w, "    evidence: %s\n", ev)
			}
			fmt.Fprintf(w, "    fix: %s\n", f.Fix)
			if f.Source != "" {
				fmt.Fprintf(w, "    source: %s\n", f.Source)
			}
		}
	}
	if len(rep.Rules) > 0 {
		fmt.Fprintln(w, "\nRegional rules")
		for _, rr := range rep.Rules {
			name := rr.Rule
			if name == "" {
				name = "the banner"
			}
			result := "not verified"
			switch {
			case rr.Passed:
				result = "passed"
			case rr.VerifiedAt != nil:
				result = fmt.Sprintf("failed, %d error(s)", rr.Errors)
			}
			where := rr.Location
			if where == "" {
				where = "this machine's location"
			}
			when := ""
			if rr.VerifiedAt != nil {
				when = " at " + rr.VerifiedAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(w, "  %s (%s; %s) from %s%s: %s: %s\n", name, strings.Join(rr.Regions, ", "), rr.Behavior, where, when,
				strings.Join(rr.States, ", "), result)
		}
	}
	fmt.Fprintln(w, "\nSummary")
	for _, s := range rep.Summary {
		if s.Rules == 0 {
			// Its rules read the site's consentd configuration, which this run did not have.
			fmt.Fprintf(w, "  %-12s not checked\n", s.Family)
			continue
		}
		fmt.Fprintf(w, "  %-12s %d/%d rules passed, %d error(s), %d warning(s), %d notice(s)\n",
			s.Family, s.Passed, s.Rules, s.Errors, s.Warnings, s.Notices)
	}
}

// evidence is a finding's evidence on one line.
func evidence(e corescan.Evidence) string {
	var parts []string
	add := func(label string, v *string) {
		if v != nil && *v != "" {
			parts = append(parts, label+" "+*v)
		}
	}
	if e.Field != nil {
		f := *e.Field
		if e.Value != nil {
			f += " = " + *e.Value
		}
		parts = append(parts, f)
	}
	add("state", e.State)
	add("page", e.Page)
	add("request", e.Request)
	add("cookie", e.Cookie)
	add("service", e.Service)
	add("category", e.Category)
	return strings.Join(parts, "; ")
}

// issueVerifierCredential asks the site's consentd for a verifier's credential and the site's
// places (POST /sites/{id}/verifier-credential).
func issueVerifierCredential(ctx context.Context, apiURL, apiKey, siteID string) (*verifier.Issued, error) {
	u := strings.TrimSuffix(apiURL, "/") + "/sites/" + url.PathEscape(siteID) + "/verifier-credential"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return nil, fmt.Errorf("--api-url: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+apiKey)
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("the verifier's credential could not be asked for: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusCreated {
		return nil, fmt.Errorf("%s answered %s: %s", u, res.Status, strings.TrimSpace(string(body)))
	}
	var out verifier.Issued
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return &out, nil
}
