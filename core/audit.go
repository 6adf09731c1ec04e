package core

import (
	"bytes"
	"context"
	"encoding/base64"
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
	AuditSiteCreate       = "site.create"
	AuditSiteUpdate       = "site.update"
	AuditSiteDelete       = "site.delete"
	AuditBannerUpdate     = "banner" + ".update"
	AuditScriptBlocking   = "banner" + ".script_blocking"
	AuditCategoryCreate   = "category.create"
	AuditCategoryUpdate   = "category.update"
	AuditCategoryDelete   = "category.delete"
	AuditServiceCreate    = "service.create"
	AuditServiceUpdate    = "service.update"
	AuditServiceImport    = "service.import"
	AuditServiceDelete    = "service.delete"
	AuditScanTrigger      = "scan.trigger"
	AuditScanConfigure    = "scan.configure"
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
)

// AuditActions returns every action, for filters and the enum of the API.
func AuditActions() []string {
	return []string{AuditSiteCreate, AuditSiteUpdate, AuditSiteDelete, AuditBannerUpdate, AuditScriptBlocking,
		AuditCategoryCreate, AuditCategoryUpdate, AuditCategoryDelete, AuditServiceCreate, AuditServiceUpdate,
		AuditServiceImport, AuditServiceDelete, AuditScanTrigger, AuditScanConfigure, AuditKeyCreate, AuditKeyRotate,
		AuditKeyRevoke, AuditVisitorErase, AuditConsentExport, AuditMemberInvite, AuditMemberJoin, AuditMemberRole,
		AuditMemberRemove, AuditSessionRevoke, AuditUserPasswordSet, AuditUserTOTPEnable, AuditUserTOTPDisable, AuditOrganizationInit,
		AuditSSOUpdate, AuditSSODelete, AuditUserTOTPReset, AuditUserRecoveryUse, AuditUserRecoveryNew,
		AuditWebhookCreate, AuditWebhookUpdate, AuditWebhookDelete, AuditWebhookTest, AuditWebhookRedeliver}
}

// AuditStore keeps the audit log.
type AuditStore interface {
	// AuditHead returns the organization's last entry's seq and hash (0 and GenesisHash when
	// it has none) and, in a transaction, holds the organization's log until it ends, so
	// that appends are serialized per organization.
	AuditHead(ctx context.Context, orgID string) (int64, string, error)
	// AppendAudit stores an entry and makes it the organization's head; conflict when its seq
	// is taken.
	AppendAudit(ctx context.Context, e *AuditEntry) error
	// AuditEntries lists entries matching q, newest first (highest seq), at most q.Limit.
	AuditEntries(ctx context.Context, q AuditQuery) ([]*AuditEntry, error)
	// EachAuditEntry calls fn with every entry of the organization, oldest first, holding a
	// bounded number in memory; it stops at fn's first error and returns it.
	EachAuditEntry(ctx context.Context, orgID string, fn func(*AuditEntry) error) error
	// AuditAnchor returns the seq and hash of the organization's last entry removed by
	// retention (0 and GenesisHash when none was): the oldest kept entry follows it.
	AuditAnchor(ctx context.Context, orgID string) (int64, string, error)
	// RemoveAuditEntries removes, in one transaction, the organization's entries up to and
	// including seq through, makes the last one removed the anchor, and returns how many
	// it removed. The head is unchanged, even when every entry is removed.
	RemoveAuditEntries(ctx context.Context, orgID string, through int64) (int, error)
}

// AuditQuery filters the audit log. From and To are exclusive bounds on CreatedAt; BeforeSeq,
// when not 0, continues a listing below that seq.
type AuditQuery struct {
	OrgID     string
	From, To  *time.Time
	SiteID    string
	Actor     string
	Action    string
	BeforeSeq int64
	Limit     int
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

// AuditLog are the use cases of the audit log.
type AuditLog struct {
	store Store
}

// AuditPage is a page of the audit log.
type AuditPage struct {
	Entries []*AuditEntry `json:"entries"`
	// NextCursor continues the listing; "" on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Entries lists the organization's audit log, newest first, filtered by q.
func (auditLog *AuditLog) AuditEntries(ctx context.Context, orgID string, q AuditQuery, cursor string) (*AuditPage, error) {
	if err := authorize(ctx, PermAudit, orgID, ""); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultAuditLimit
	}
	if q.Limit < 1 || q.Limit > MaxAuditLimit {
		return nil, FieldErrorf("limit", "must be 1 to %d", MaxAuditLimit)
	}
	if q.From != nil && q.To != nil && !q.From.Before(*q.To) {
		return nil, FieldErrorf("from", "must be before to")
	}
	if q.Action != "" && !slices.Contains(AuditActions(), q.Action) {
		return nil, FieldErrorf("action", "not an audit action")
	}
	for field, v := range map[string]string{"siteId": q.SiteID, "actor": q.Actor} {
		if len(v) > MaxAuditFilter {
			return nil, FieldErrorf(field, "must be at most %d characters", MaxAuditFilter)
		}
		if err := CheckText(field, v); err != nil {
			return nil, err
		}
	}
	if cursor != "" {
		seq, err := decodeAuditCursor(cursor)
		if err != nil {
			return nil, err
		}
		q.BeforeSeq = seq
	}
	q.OrgID = orgID
	es, err := auditLog.store.AuditEntries(ctx, q)
	if err != nil {
		return nil, err
	}
	p := &AuditPage{Entries: es}
	if len(es) == q.Limit && es[len(es)-1].Seq > 1 {
		p.NextCursor = base64.RawURLEncoding.EncodeToString([]byte("audit:" + strconv.FormatInt(es[len(es)-1].Seq, 10)))
	}
	return p, nil
}

func decodeAuditCursor(c string) (int64, error) {
	bad := FieldErrorf("cursor", "not a cursor of this listing")
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(c) > MaxAuditFilter {
		return 0, bad
	}
	s, ok := strings.CutPrefix(string(raw), "audit:")
	seq, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil || seq < 1 {
		return 0, bad
	}
	return seq, nil
}

// AuditReport is the outcome of verifying an organization's audit log.
type AuditReport struct {
	OK bool `json:"ok"`
	// Entries is how many entries were verified: those kept, after the anchor.
	Entries int64  `json:"entries"`
	HeadSeq int64  `json:"headSeq"`
	Head    string `json:"headHash"`
	// AnchorSeq and AnchorHash are what the chain was verified from: the last entry removed
	// by retention (its seq and hash), or 0 and 64 zeros while none was. The first kept
	// entry must be AnchorSeq+1 and carry AnchorHash as its prevHash. Keep the anchor of
	// a report to check later that the log was only shortened from its start.
	AnchorSeq  int64  `json:"anchorSeq"`
	AnchorHash string `json:"anchorHash"`
	// Break is the first entry that differs from what was written.
	Break *AuditBreak `json:"break,omitempty"`
}

// AuditBreak names the first break of the audit chain.
type AuditBreak struct {
	Seq     int64  `json:"seq"`
	EntryID string `json:"entryId,omitempty"`
	Problem string `json:"problem"`
}

// Verify recomputes the organization's audit chain and reports the first entry whose fields
// no longer hash to its hash, whose link to the previous entry is broken, or that is missing.
func (auditLog *AuditLog) VerifyAuditLog(ctx context.Context, orgID string) (*AuditReport, error) {
	if err := authorize(ctx, PermAudit, orgID, ""); err != nil {
		return nil, err
	}
	headSeq, headHash, err := auditLog.store.AuditHead(ctx, orgID)
	if err != nil {
		return nil, err
	}
	rep := &AuditReport{HeadSeq: headSeq, Head: headHash}
	// Entries removed by retention leave their last one as the anchor the chain starts from.
	prevSeq, prevHash, err := auditLog.store.AuditAnchor(ctx, orgID)
	if err != nil {
		return nil, err
	}
	rep.AnchorSeq, rep.AnchorHash = prevSeq, prevHash
	stop := fmt.Errorf("audit chain broken")
	err = auditLog.store.EachAuditEntry(ctx, orgID, func(e *AuditEntry) error {
		br := func(problem string) error {
			rep.Break = &AuditBreak{Seq: e.Seq, EntryID: e.ID, Problem: problem}
			return stop
		}
		switch {
		case e.Seq != prevSeq+1:
			rep.Break = &AuditBreak{Seq: prevSeq + 1, Problem: fmt.Sprintf("entry %d is missing (the next stored is %d)", prevSeq+1, e.Seq)}
			return stop
		case e.PrevHash != prevHash:
			return br("its prevHash is not the previous entry's hash")
		case AuditHash(e) != e.Hash:
			return br("its fields no longer hash to its hash: it was changed after it was written")
		}
		prevSeq, prevHash = e.Seq, e.Hash
		rep.Entries++
		return nil
	})
	if err != nil && err != stop {
		return nil, err
	}
	if rep.Break == nil && (prevSeq != headSeq || prevHash != headHash) {
		rep.Break = &AuditBreak{Seq: prevSeq, Problem: fmt.Sprintf("the log ends at entry %d but its head is entry %d", prevSeq, headSeq)}
	}
	rep.OK = rep.Break == nil
	return rep, nil
}

// AuditCanonical is what an entry's hash covers: every field but the hash, one per line.
func AuditCanonical(e *AuditEntry) string {
	changes, _ := json.Marshal(e.Changes) // RawMessage values are valid JSON by construction
	return strings.Join([]string{"consentd-audit-v1", e.ID, e.OrganizationID, strconv.FormatInt(e.Seq, 10), e.SiteID,
		e.ActorKind, e.ActorID, e.ActorName, e.Action, e.Target, string(changes), CanonicalTime(e.CreatedAt), e.PrevHash}, "\n")
}

// AuditHash is the hex SHA-256 of an entry's canonical form.
func AuditHash(e *AuditEntry) string { return sha256Hex(AuditCanonical(e)) }

// auditor appends entries to the audit log, in the transaction of the change they record.
type auditor struct {
	clock
	newID func() string
}

// record appends an audit entry for the caller in ctx (forbidden without one) in tx, chained
// after the organization's head. old and new are the resource before and after (nil for a
// creation or a deletion); their differing JSON fields become the entry's changes.
func (audit auditor) record(ctx context.Context, tx Store, orgID, siteID, action, target string, old, new any) error {
	changes, err := diffFields(old, new)
	if err != nil {
		return err
	}
	return audit.recordChanges(ctx, tx, orgID, siteID, action, target, changes)
}

func (audit auditor) recordChanges(ctx context.Context, tx Store, orgID, siteID, action, target string, changes []Change) error {
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
	e := &AuditEntry{ID: audit.newID(), OrganizationID: orgID, Seq: seq + 1, SiteID: siteID, ActorKind: a.Kind, ActorID: a.ID,
		ActorName: a.Name, Action: action, Target: target, Changes: changes, CreatedAt: audit.now(), PrevHash: prev}
	e.Hash = AuditHash(e)
	return tx.AppendAudit(ctx, e)
}

// ignoredFields change on every write and say nothing.
var ignoredFields = []string{"updatedAt", "createdAt"}

// diffFields compares the top-level JSON fields of old and new.
func diffFields(old, new any) ([]Change, error) {
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

// snapshot is v as it is now, for an entry's old values: the use case may change v in place.
func snapshot(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
