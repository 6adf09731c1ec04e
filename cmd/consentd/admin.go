package main

import (
	"context"
	"fmt"

	"github.com/consentd/consentd/app"
	"github.com/consentd/consentd/core"
)

func orgCreate(ctx context.Context, args []string) error {
	var cfg app.Config
	var name string
	fs := newFlags("org create")
	storeFlags(fs, &cfg)
	fs.StringVar(&name, "name", "", "organization name (required)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	o, err := a.Manager.CreateOrganization(ctx, name)
	if err != nil {
		return err
	}
	return printJSON(o)
}

func apikeyCreate(ctx context.Context, args []string) error {
	var cfg app.Config
	var org, name string
	fs := newFlags("apikey create")
	storeFlags(fs, &cfg)
	fs.StringVar(&org, "org", "", "organization ID (required)")
	fs.StringVar(&name, "name", "", "label of the key")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	k, key, err := a.Manager.CreateAPIKey(ctx, org, name, "")
	if err != nil {
		return err
	}
	return printJSON(map[string]string{"id": k.ID, "organizationId": k.OrganizationID, "key": key})
}

func siteCreate(ctx context.Context, args []string) error {
	var cfg app.Config
	var org, name, url string
	fs := newFlags("site create")
	storeFlags(fs, &cfg)
	fs.StringVar(&org, "org", "", "organization ID (required)")
	fs.StringVar(&name, "name", "", "site name (required)")
	fs.StringVar(&url, "url", "", "site homepage, absolute http(s) URL (required)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	a, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := a.Manager.Store.Organization(ctx, org); err != nil {
		return fmt.Errorf("--org %q: %w", org, err)
	}
	s, err := a.Manager.CreateSite(ctx, org, core.SiteInput{Name: &name, URL: &url})
	if err != nil {
		return err
	}
	return printJSON(map[string]any{
		"id": s.ID, "organizationId": s.OrganizationID, "accountId": s.OrganizationID, "name": s.Name,
		"url": s.URL, "projectKey": s.ProjectKey, "createdAt": s.CreatedAt, "updatedAt": s.UpdatedAt,
	})
}
