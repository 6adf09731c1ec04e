package httpapi

import (
	"fmt"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/core"
)

// opPermissions says which permission each authenticated operation needs. Core enforces the
// rule (core.Actor.Authorize, from the one table of roles); this table only documents it in
// the OpenAPI description, and the role-matrix test checks that what is documented is what
// is enforced. Every authenticated operation must be listed (a test fails otherwise).
var opPermissions = map[string]core.Permission{
	"listApiKeys":  core.PermKeys,
	"createApiKey": core.PermKeys,
	"revokeApiKey": core.PermKeys,
	"rotateApiKey": core.PermKeys,

	"listSites":  core.PermRead,
	"getSite":    core.PermRead,
	"createSite": core.PermSites,
	"updateSite": core.PermConfigure,
	"deleteSite": core.PermSites,

	"getBanner":         core.PermRead,
	"updateBanner":      core.PermConfigure,
	"setScriptBlocking": core.PermConfigure,

	"listCategories": core.PermRead,
	"createCategory": core.PermConfigure,
	"updateCategory": core.PermConfigure,
	"deleteCategory": core.PermConfigure,

	"listServices":      core.PermRead,
	"createService":     core.PermConfigure,
	"importService":     core.PermConfigure,
	"deleteService":     core.PermConfigure,
	"searchLibrary":     core.PermRead,
	"getLibraryService": core.PermRead,
	"listRegionPresets": core.PermRead,
	"getRegionLaws":     core.PermRead,

	"triggerScan":             core.PermConfigure,
	"issueVerifierCredential": core.PermConfigure,
	"listScans":               core.PermRead,
	"getScan":                 core.PermRead,
	"configureScan":           core.PermConfigure,
	"getTrackers":             core.PermRead,

	"getCompliance":        core.PermRead,
	"listConsentRecords":   core.PermRead,
	"exportConsentRecords": core.PermExport,
	"getConsentSnapshot":   core.PermRead,
	"verifyConsentRecords": core.PermVerify,
	"getConsentStats":      core.PermRead,
	"getAnalytics":         core.PermRead,
	"exportAnalytics":      core.PermRead,
	"eraseVisitor":         core.PermVisitors,
	"getSetupSnippet":      core.PermRead,

	"listAuditLog":   core.PermAudit,
	"verifyAuditLog": core.PermAudit,

	"createWebhook":         core.PermKeys,
	"listWebhooks":          core.PermKeys,
	"getWebhook":            core.PermKeys,
	"updateWebhook":         core.PermKeys,
	"deleteWebhook":         core.PermKeys,
	"listWebhookDeliveries": core.PermKeys,
	"getWebhookDelivery":    core.PermKeys,
	"redeliverWebhook":      core.PermKeys,
	"testWebhook":           core.PermKeys,

	"createExperiment":     core.PermConfigure,
	"listExperiments":      core.PermRead,
	"getExperiment":        core.PermRead,
	"startExperiment":      core.PermConfigure,
	"stopExperiment":       core.PermConfigure,
	"promoteExperiment":    core.PermConfigure,
	"getExperimentResults": core.PermRead,

	"getSso":    core.PermMembers,
	"putSso":    core.PermMembers,
	"deleteSso": core.PermMembers,
}

// opNotes add what the permission alone does not say.
var opNotes = map[string]string{
	"createApiKey":       "An owner key needs the owner role; a key never gets more than its creator's role.",
	"revokeApiKey":       "Revoking an owner key needs the owner role.",
	"rotateApiKey":       "Rotating an owner key needs the owner role.",
	"listConsentRecords": "Filtering by `visitorId` is a visitor lookup: it needs the `visitors` permission (owner, admin, privacy).",
	"listSites":          "A key limited to some sites lists only those.",
}

// OperationPermission returns the permission an operation of the API needs, for tests and
// documentation; false when the operation is not in the table.
func OperationPermission(operationID string) (core.Permission, bool) {
	p, ok := opPermissions[operationID]
	return p, ok
}

// documentRoles appends to each authenticated operation's description the roles that may
// call it and whether a key limited to some sites may, and adds the role matrix to the API's
// description. huma serves the document from these structures, so this runs once at start.
func documentRoles(api huma.API) {
	doc := api.OpenAPI()
	for _, path := range doc.Paths {
		for _, o := range []*huma.Operation{path.Get, path.Post, path.Put, path.Patch, path.Delete} {
			if o == nil || len(o.Security) == 0 {
				continue
			}
			p, ok := opPermissions[o.OperationID]
			if !ok {
				continue // roles_test fails on it
			}
			var roles []string
			for _, r := range core.RolesAllowing(p) {
				roles = append(roles, "`"+string(r)+"`")
			}
			scope := "a key limited to some sites may call it on those sites only"
			if !strings.Contains(o.Path, "{id}") || strings.HasPrefix(o.Path, "/api-keys") || strings.HasPrefix(o.Path, "/webhooks") {
				scope = "a key limited to some sites may not call it"
				if core.ScopedAllows(p) {
					scope = "a key limited to some sites may call it"
				}
			}
			text := fmt.Sprintf("**Roles:** %s (permission `%s`); %s. Others get 403 `forbidden`.",
				strings.Join(roles, ", "), p, scope)
			if n := opNotes[o.OperationID]; n != "" {
				text += " " + n
			}
			if o.Description != "" {
				o.Description += "\n\n"
			}
			o.Description += text
		}
	}
	doc.Info.Description += "\n\n" + roleMatrix()
}

// roleMatrix is the table of roles as Markdown, from core's table.
func roleMatrix() string {
	var b strings.Builder
	b.WriteString("Roles. Every API key has a role (`POST /api-keys` takes `role`, default `admin`; keys made before roles existed are owners) and may be limited to some sites (`siteIds`). An operation the role or the sites do not allow answers 403 with code `forbidden`.\n\n| permission | what it covers |")
	for _, r := range core.Roles() {
		b.WriteString(" " + string(r) + " |")
	}
	b.WriteString("\n|---|---|")
	for range core.Roles() {
		b.WriteString("---|")
	}
	for _, p := range core.Permissions() {
		fmt.Fprintf(&b, "\n| `%s` | %s |", p, permissionWords[p])
		for _, r := range core.Roles() {
			if r.Allows(p) {
				b.WriteString(" yes |")
			} else {
				b.WriteString(" no |")
			}
		}
	}
	b.WriteString("\n\nA key limited to some sites may use its permissions on those sites, list them and read the library; it may not act on the organization as a whole (create sites, keys, the audit log).")
	return b.String()
}

// permissionWords say what each permission covers.
var permissionWords = map[core.Permission]string{
	core.PermRead:      "read sites, banners, categories, services, scans, consent records, statistics, compliance, the library",
	core.PermConfigure: "change a site's settings, banner, script blocking, categories, services; trigger and configure scans",
	core.PermSites:     "create and delete sites",
	core.PermExport:    "export consent records",
	core.PermVerify:    "verify the consent-record chain",
	core.PermVisitors:  "look a visitor up, erase a visitor",
	core.PermRetention: "set how long a site's proof is kept (`consentRetentionDays`), which removes older consent records and audit entries",
	core.PermKeys:      "list, create, rotate and revoke API keys other than owner keys",
	core.PermOwnerKeys: "create, rotate and revoke owner keys",
	core.PermMembers:   "invite and remove members, change roles, set the organization's single sign-on",
	core.PermFactors:   "reset a member's two-step sign-in (not an owner's, for an admin)",
	core.PermAudit:     "read and verify the audit log",
}
