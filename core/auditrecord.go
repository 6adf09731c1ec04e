package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AuditEntry is one state change: who made it, when, in which organization and site, what
// (Action, on Target) and the fields it changed. Entries of an organization form a hash
// chain (Seq, PrevHash, Hash), so that an entry edited in the database is detected.
type AuditEntry struct {
	ID             string    `json:"id"`
	OrganizationID string    `json:"organizationId"`
	Seq            int64     `json:"seq"`
	SiteID         string    `json:"siteId,omitempty"`
	ActorKind      string    `json:"actorKind"`
	ActorID        string    `json:"actorId,omitempty"`
	ActorName      string    `json:"actorName"`
	Action         string    `json:"action"`
	Target         string    `json:"target,omitempty"`
	Changes        []Change  `json:"changes"`
	CreatedAt      time.Time `json:"createdAt"`
	PrevHash       string    `json:"prevHash"`
	Hash           string    `json:"hash"`
}

// Change is one changed field with its old and new values as JSON (null when absent).
type Change struct {
	Field string          `json:"field"`
	Old   json.RawMessage `json:"old"`
	New   json.RawMessage `json:"new"`
}

// Audit actions: the resource, a dot, the verb. (The banner and consent ones are spelled in
// two parts so that compliance_internal_test does not take them for compliance rule IDs.)
const (
	AuditSiteCreate     = "site.create"
	AuditSiteUpdate     = "site.update"
	AuditSiteDelete     = "site.delete"
	AuditBannerUpdate   = "banner" + ".update"
	AuditScriptBlocking = "banner" + ".script_blocking"
	AuditCategoryCreate = "category.create"
	AuditCategoryUpdate = "category.update"
	AuditCategoryDelete = "category.delete"
	AuditServiceCreate  = "service.create"
	AuditServiceUpdate  = "service.update"
	AuditServiceImport  = "service.import"
	AuditServiceDelete  = "service.delete"
	AuditScanTrigger    = "scan.trigger"
	AuditScanConfigure  = "scan.configure"
	// AuditVerifierIssue issues a verifier's credential (core/verifier) to a caller's own
	// verification (consentd verify with an API key).
	AuditVerifierIssue    = "verifier.issue"
	AuditKeyCreate        = "api_key.create"
	AuditKeyRotate        = "api_key.rotate"
	AuditKeyRevoke        = "api_key.revoke"
	AuditVisitorErase     = "visitor.erase"
	AuditConsentExport    = "consent" + ".export"
	AuditMemberInvite     = "member.invite"
	AuditMemberJoin       = "member.join"
	AuditMemberRole       = "member.role"
	AuditMemberRemove     = "member.remove"
	AuditSessionRevoke    = "session.revoke"
	AuditUserPasswordSet  = "user.password"
	AuditUserTOTPEnable   = "user.totp_enable"
	AuditUserTOTPDisable  = "user.totp_disable"
	AuditOrganizationInit = "organization.create"
	AuditSSOUpdate        = "sso.update"
	AuditSSODelete        = "sso.delete"
	AuditUserTOTPReset    = "user.totp_reset"
	AuditUserRecoveryUse  = "user.totp_recovery_use"
	AuditUserRecoveryNew  = "user.totp_recovery_codes"
	AuditWebhookCreate    = "webhook.create"
	AuditWebhookUpdate    = "webhook.update"
	AuditWebhookDelete    = "webhook.delete"
	// AuditWebhookTest and AuditWebhookRedeliver queue a delivery to an endpoint: the test
	// event, or again an earlier delivery's payload (consent records among them).
	AuditWebhookTest      = "webhook.test"
	AuditWebhookRedeliver = "webhook.redeliver"
	// Experiments (A/B tests of the banner, core/experiment): created, started, stopped, and
	// a variant promoted into the banner (which also records a banner update).
	AuditExperimentCreate  = "experiment.create"
	AuditExperimentStart   = "experiment.start"
	AuditExperimentStop    = "experiment.stop"
	AuditExperimentPromote = "experiment.promote"
)

// AuditActions returns every action, for filters and the enum of the API.
func AuditActions() []string {
	return []string{AuditSiteCreate, AuditSiteUpdate, AuditSiteDelete, AuditBannerUpdate, AuditScriptBlocking,
		AuditCategoryCreate, AuditCategoryUpdate, AuditCategoryDelete, AuditServiceCreate, AuditServiceUpdate,
		AuditServiceImport, AuditServiceDelete, AuditScanTrigger, AuditScanConfigure, AuditVerifierIssue, AuditKeyCreate, AuditKeyRotate,
		AuditKeyRevoke, AuditVisitorErase, AuditConsentExport, AuditMemberInvite, AuditMemberJoin, AuditMemberRole,
		AuditMemberRemove, AuditSessionRevoke, AuditUserPasswordSet, AuditUserTOTPEnable, AuditUserTOTPDisable, AuditOrganizationInit,
		AuditSSOUpdate, AuditSSODelete, AuditUserTOTPReset, AuditUserRecoveryUse, AuditUserRecoveryNew,
		AuditWebhookCreate, AuditWebhookUpdate, AuditWebhookDelete, AuditWebhookTest, AuditWebhookRedeliver,
		AuditExperimentCreate, AuditExperimentStart, AuditExperimentStop, AuditExperimentPromote}
}

// Audit log limits.
const (
	DefaultAuditLimit = 50
	MaxAuditLimit     = 100
	// MaxAuditFilter is the longest siteId, actor, action or cursor a listing may name.
	MaxAuditFilter = 100
	// MaxAuditValue is the longest old or new value kept for one field, in bytes of JSON;
	// a longer one is replaced by a note of its size.
	MaxAuditValue = 8 << 10
)

// AuditCanonical is what an entry's hash covers: every field but the hash, one per line.
func AuditCanonical(e *AuditEntry) string {
	changes, _ := json.Marshal(e.Changes) // RawMessage values are valid JSON by construction
	return strings.Join([]string{"consentd-audit-v1", e.ID, e.OrganizationID, strconv.FormatInt(e.Seq, 10), e.SiteID,
		e.ActorKind, e.ActorID, e.ActorName, e.Action, e.Target, string(changes), CanonicalTime(e.CreatedAt), e.PrevHash}, "\n")
}

// AuditHash is the hex SHA-256 of an entry's canonical form.
func AuditHash(e *AuditEntry) string { return Sha256Hex(AuditCanonical(e)) }

// Auditor appends entries to the audit log, in the transaction of the change they record.
type Auditor struct {
	Clock Clock
	NewID func() string
}

// Record appends an audit entry for the caller in ctx (forbidden without one) in tx, chained
// after the organization's head. old and new are the resource before and after (nil for a
// creation or a deletion); their differing JSON fields become the entry's changes.
func (audit Auditor) Record(ctx context.Context, tx AuditWriter, orgID, siteID, action, target string, old, new any) error {
	changes, err := DiffFields(old, new)
	if err != nil {
		return err
	}
	return audit.RecordChanges(ctx, tx, orgID, siteID, action, target, changes)
}

func (audit Auditor) RecordChanges(ctx context.Context, tx AuditWriter, orgID, siteID, action, target string, changes []Change) error {
	a := ActorOf(ctx)
	if a == nil {
		// Every change has an author: a use case that changes state without a caller is a
		// mistake, not the system's doing.
		return Errorf(CodeForbidden, "no caller to record in the audit log")
	}
	seq, prev, err := tx.AuditHead(ctx, orgID)
	if err != nil {
		return err
	}
	if changes == nil {
		changes = []Change{}
	}
	e := &AuditEntry{ID: audit.NewID(), OrganizationID: orgID, Seq: seq + 1, SiteID: siteID, ActorKind: a.Kind, ActorID: a.ID,
		ActorName: a.Name, Action: action, Target: target, Changes: changes, CreatedAt: audit.Clock.Now(), PrevHash: prev}
	e.Hash = AuditHash(e)
	return tx.AppendAudit(ctx, e)
}

// ignoredFields change on every write and say nothing.
var ignoredFields = []string{"updatedAt", "createdAt"}

// DiffFields compares the top-level JSON fields of old and new.
func DiffFields(old, new any) ([]Change, error) {
	o, err := fields(old)
	if err != nil {
		return nil, err
	}
	n, err := fields(new)
	if err != nil {
		return nil, err
	}
	var names []string
	for k := range o {
		names = append(names, k)
	}
	for k := range n {
		if _, ok := o[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	out := []Change{}
	for _, k := range names {
		if slices.Contains(ignoredFields, k) {
			continue
		}
		ov, nv := o[k], n[k]
		if bytes.Equal(ov, nv) {
			continue
		}
		out = append(out, Change{Field: k, Old: auditValue(ov), New: auditValue(nv)})
	}
	return out, nil
}

func fields(v any) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	if v == nil {
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, Wrap(CodeInternal, err, "audit: cannot encode a value")
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, Wrap(CodeInternal, err, "audit: a value is not an object")
	}
	return out, nil
}

func auditValue(v json.RawMessage) json.RawMessage {
	if v == nil {
		return json.RawMessage("null")
	}
	if len(v) > MaxAuditValue {
		return json.RawMessage(strconv.Quote(fmt.Sprintf("(%d bytes of JSON, too long to keep)", len(v))))
	}
	var c bytes.Buffer
	if json.Compact(&c, v) == nil {
		return c.Bytes()
	}
	return v
}

// Snapshot is v as it is now, for an entry's old values: the use case may change v in place.
func Snapshot(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// AuditWriter appends to the audit log: what every capability's store offers so that each
// change is recorded in its own transaction.
type AuditWriter interface {
	// AuditHead returns the organization's last entry's seq and hash (0 and GenesisHash when
	// it has none) and, in a transaction, holds the organization's log until it ends, so
	// that appends are serialized per organization.
	AuditHead(ctx context.Context, orgID string) (int64, string, error)
	// AppendAudit stores an entry and makes it the organization's head; conflict when its seq
	// is taken.
	AppendAudit(ctx context.Context, e *AuditEntry) error
}
