package identity

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// AuditStore keeps the audit log.
type AuditStore interface {
	core.AuditWriter
	// AuditEntries lists entries matching q, newest first (highest seq), at most q.Limit.
	AuditEntries(ctx context.Context, q AuditQuery) ([]*core.AuditEntry, error)
	// EachAuditEntry calls fn with every entry of the organization, oldest first, holding a
	// bounded number in memory; it stops at fn's first error and returns it.
	EachAuditEntry(ctx context.Context, orgID string, fn func(*core.AuditEntry) error) error
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

// AuditLog are the use cases of the audit log.
type AuditLog struct {
	Store Store
	// AllSites is for audit retention, deployment-wide work.
	AllSites core.SiteLister
	Clock    core.Clock
}

// AuditPage is a page of the audit log.
type AuditPage struct {
	Entries []*core.AuditEntry `json:"entries"`
	// NextCursor continues the listing; "" on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Entries lists the organization's audit log, newest first, filtered by q.
func (auditLog *AuditLog) AuditEntries(ctx context.Context, orgID string, q AuditQuery, cursor string) (*AuditPage, error) {
	if err := core.Authorize(ctx, core.PermAudit, orgID, ""); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = core.DefaultAuditLimit
	}
	if q.Limit < 1 || q.Limit > core.MaxAuditLimit {
		return nil, core.FieldErrorf("limit", "must be 1 to %d", core.MaxAuditLimit)
	}
	if q.From != nil && q.To != nil && !q.From.Before(*q.To) {
		return nil, core.FieldErrorf("from", "must be before to")
	}
	if q.Action != "" && !slices.Contains(core.AuditActions(), q.Action) {
		return nil, core.FieldErrorf("action", "not an audit action")
	}
	for field, v := range map[string]string{"siteId": q.SiteID, "actor": q.Actor} {
		if len(v) > core.MaxAuditFilter {
			return nil, core.FieldErrorf(field, "must be at most %d characters", core.MaxAuditFilter)
		}
		if err := core.CheckText(field, v); err != nil {
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
	es, err := auditLog.Store.AuditEntries(ctx, q)
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
	bad := core.FieldErrorf("cursor", "not a cursor of this listing")
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(c) > core.MaxAuditFilter {
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
	if err := core.Authorize(ctx, core.PermAudit, orgID, ""); err != nil {
		return nil, err
	}
	// The head, the anchor and the entries are separate reads: when retention moved the anchor
	// meanwhile (removing the entries the walk expected first), the walk is done again, so that
	// a removal by the retention job is never reported as a break.
	for attempt := 0; ; attempt++ {
		rep, err := auditLog.verifyOnce(ctx, orgID)
		if err != nil || rep.OK || attempt == 2 {
			return rep, err
		}
		seq, hash, err := auditLog.Store.AuditAnchor(ctx, orgID)
		if err != nil {
			return nil, err
		}
		if seq == rep.AnchorSeq && hash == rep.AnchorHash {
			return rep, nil
		}
	}
}

// verifyOnce walks the organization's audit log once from its anchor to its head.
func (auditLog *AuditLog) verifyOnce(ctx context.Context, orgID string) (*AuditReport, error) {
	headSeq, headHash, err := auditLog.Store.AuditHead(ctx, orgID)
	if err != nil {
		return nil, err
	}
	rep := &AuditReport{HeadSeq: headSeq, Head: headHash}
	// Entries removed by retention leave their last one as the anchor the chain starts from.
	prevSeq, prevHash, err := auditLog.Store.AuditAnchor(ctx, orgID)
	if err != nil {
		return nil, err
	}
	rep.AnchorSeq, rep.AnchorHash = prevSeq, prevHash
	stop := fmt.Errorf("audit chain broken")
	err = auditLog.Store.EachAuditEntry(ctx, orgID, func(e *core.AuditEntry) error {
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
		case core.AuditHash(e) != e.Hash:
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
