package consent

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/consentd/consentd/core"
)

// The chain of consent records (docs/consent-records.md, "Tamper evidence", is the normative
// text; a third party must be able to check an export from it alone).
//
// Every record has a canonical form, one line of tab-separated fields; its recordHash is the
// hex SHA-256 of that line. The records a site gets in one committed batch of the group commit
// form one link of the site's chain: its hash is the hex SHA-256 of the previous batch's hash
// followed by each record's hash, in batch order, each followed by a newline. The first batch
// of a site follows GenesisHash.

// ConsentCanonicalVersion is the first field of the canonical line of a record with no region
// and no regional rule: every record stored before regional rules, whose hash stays as it was.
const ConsentCanonicalVersion = "consentd-record-v1"

// ConsentCanonicalVersionRegion is the first field of the canonical line of a record with a
// region or a regional rule: the v1 fields followed by region and regionRule.
const ConsentCanonicalVersionRegion = "consentd-record-v2"

// ConsentCanonicalVersionTCF is the first field of the canonical line of a record with TCF
// strings or a GVL version: the v2 fields (region and regionRule always present) followed by
// gvlVersion, tcString and acString.
const ConsentCanonicalVersionTCF = "consentd-record-v3"

// ConsentCanonicalVersionGPP is the first field of the canonical line of a record with a GPP
// string: the v3 fields (all present, possibly empty) followed by gppString.
const ConsentCanonicalVersionGPP = "consentd-record-v4"

// ConsentCanonicalVersionVariant is the first field of the canonical line of a record made
// under an A/B test variant: the v4 fields (all present, possibly empty) followed by variant.
const ConsentCanonicalVersionVariant = "consentd-record-v5"

// Limits of the proof fields (checked in RecordConsent and on the listing's filters).
const (
	// MaxRuntimeVersion is the longest runtimeVersion a consent POST may name.
	MaxRuntimeVersion = 32
	// MaxConsentCursor is the longest listing cursor a client may send.
	MaxConsentCursor = 200
	// verifyBatchPage is how many batches VerifyConsentChain reads per store call.
	verifyBatchPage = 100
	// maxBatchRecords bounds the records of one batch that verification collects: no store
	// commits more at once (bunstore's largest group is 512).
	maxBatchRecords = 1024
)

// LegacyBatchSeq is the batch sequence of records stored before the chain existed: they are
// listed and exported but not covered by it.
const LegacyBatchSeq = 0

// ConsentCanonical returns the canonical line of a record (without a newline). Every field is
// free of tabs and newlines by construction: IDs are UUIDs, the visitor is represented by its
// hash, the page URL is percent-encoded, the region is an ISO 3166-2 code and the rule
// "regionRules[i]" or "defaultBehavior", the TC string is base64url with dots and the AC
// string digits, dots, "~" and "dv" (both checked by checkTCFInput), the rest are
// enumerations, numbers and slugs.
func ConsentCanonical(r *ConsentRecord) string { return string(appendConsentCanonical(nil, r)) }

// appendConsentCanonical appends the canonical line of r to b. The line's version is the
// latest whose fields r has: v4 with a GPP string, v3 with TCF strings or a GVL version, v2
// with a region or a regional rule, v1 otherwise; each version's line is the one before with
// its fields added (present, possibly empty, on a record that has only a later version's).
func appendConsentCanonical(b []byte, r *ConsentRecord) []byte {
	hasRegion := r.Region != "" || r.RegionRule != ""
	hasTCF := r.TCString != "" || r.ACString != "" || r.GVLVersion != 0
	hasVariant := r.Variant != ""
	hasGPP := r.GPPString != "" || hasVariant
	switch {
	case hasVariant:
		b = append(b, ConsentCanonicalVersionVariant...)
	case hasGPP:
		b = append(b, ConsentCanonicalVersionGPP...)
	case hasTCF:
		b = append(b, ConsentCanonicalVersionTCF...)
	case hasRegion:
		b = append(b, ConsentCanonicalVersionRegion...)
	default:
		b = append(b, ConsentCanonicalVersion...)
	}
	b = appendField(b, r.ID)
	b = appendField(b, r.SiteID)
	b = append(b, '\t')
	b = r.CreatedAt.UTC().AppendFormat(b, core.CanonicalTimeLayout)
	b = appendField(b, r.VisitorHash)
	b = appendField(b, r.IPCountry)
	b = appendField(b, r.Jurisdiction)
	b = appendField(b, r.Action)
	b = append(b, '\t')
	var slugArr [16]string
	slugs := slugArr[:0]
	for s := range r.CategoriesConsented {
		slugs = append(slugs, s)
	}
	slices.Sort(slugs)
	for i, s := range slugs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, s...)
		if r.CategoriesConsented[s] {
			b = append(b, "=1"...)
		} else {
			b = append(b, "=0"...)
		}
	}
	b = append(b, '\t')
	b = strconv.AppendBool(b, r.GPCSignal)
	b = append(b, '\t')
	b = strconv.AppendBool(b, r.DoNotSell)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(r.ConsentVersion), 10)
	b = appendField(b, r.PageURL)
	b = appendField(b, r.UserAgent)
	b = appendField(b, r.SnapshotHash)
	if hasRegion || hasTCF || hasGPP {
		b = appendField(b, r.Region)
		b = appendField(b, r.RegionRule)
	}
	if hasTCF || hasGPP {
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(r.GVLVersion), 10)
		b = appendField(b, r.TCString)
		b = appendField(b, r.ACString)
	}
	if hasGPP {
		b = appendField(b, r.GPPString)
	}
	if hasVariant {
		b = appendField(b, r.Variant)
	}
	return b
}

// appendField appends a tab and s.
func appendField(b []byte, s string) []byte { return append(append(b, '\t'), s...) }

// ConsentRecordHash is the hex SHA-256 of the record's canonical line.
func ConsentRecordHash(r *ConsentRecord) string {
	var buf [1024]byte // most lines fit: no allocation but the hash's text
	return core.HexSum(sha256.Sum256(appendConsentCanonical(buf[:0], r)))
}

// VisitorHash is the hash of a visitor ID that the chain covers: the hex SHA-256 of the
// record's salt, a colon and the visitor ID. The salt is random per record, so that once
// erasure has removed the ID and the salt, the hash no longer links to anyone.
func VisitorHash(salt, visitorID string) string {
	var buf [256]byte
	return core.HexSum(sha256.Sum256(append(append(append(buf[:0], salt...), ':'), visitorID...)))
}

// ConsentBatchHash chains a batch's records to the previous batch's hash.
func ConsentBatchHash(prev string, recordHashes []string) string {
	h := sha256.New()
	h.Write([]byte(prev))
	h.Write([]byte{'\n'})
	for _, rh := range recordHashes {
		h.Write([]byte(rh))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// SealConsentRecord gives a new record its visitor salt and hash and its record hash. Stores
// take sealed records and add the batch fields when they commit them.
func SealConsentRecord(r *ConsentRecord) {
	if r.VisitorSalt == "" {
		r.VisitorSalt = rand.Text()
	}
	r.VisitorHash = VisitorHash(r.VisitorSalt, r.VisitorID)
	r.RecordHash = ConsentRecordHash(r)
}

// ChainConsentBatch assigns the batch fields of recs, a site's records committed together,
// after the chain head (headSeq, headHash), and returns the new head's hash.
func ChainConsentBatch(headSeq int64, headHash string, recs []*ConsentRecord) string {
	hashes := make([]string, len(recs))
	for i, r := range recs {
		hashes[i] = r.RecordHash
	}
	h := ConsentBatchHash(headHash, hashes)
	for i, r := range recs {
		r.BatchSeq, r.BatchIndex, r.BatchHash, r.PrevBatchHash = headSeq+1, i, h, headHash
	}
	return h
}

// ConsentBatch is one link of a site's chain: the records the site got in one commit.
type ConsentBatch struct {
	SiteID   string `json:"siteId"`
	Seq      int64  `json:"seq"`
	Hash     string `json:"hash"`
	PrevHash string `json:"prevHash"`
	Records  int    `json:"records"`
	// NewestAt is the createdAt of the batch's newest record; retention removes a batch once
	// it is older than the site's retention.
	NewestAt time.Time `json:"newestAt"`
}

// ConsentChain is the state of a site's chain: its head (the last batch committed) and its
// anchor (the last batch removed by retention, whose hash the oldest kept batch follows).
// A site without records has head 0 and GenesisHash.
type ConsentChain struct {
	HeadSeq    int64  `json:"headSeq"`
	HeadHash   string `json:"headHash"`
	AnchorSeq  int64  `json:"anchorSeq"`
	AnchorHash string `json:"anchorHash"`
}

// ConsentChainStore reads the chain for verification.
type ConsentChainStore interface {
	// ConsentChain returns the site's chain state; a site without records has a zero head
	// at GenesisHash.
	ConsentChain(ctx context.Context, siteID string) (ConsentChain, error)
	// ConsentBatches returns up to limit batches of the site with seq > afterSeq and
	// seq <= maxSeq, in sequence order.
	ConsentBatches(ctx context.Context, siteID string, afterSeq, maxSeq int64, limit int) ([]*ConsentBatch, error)
	// EachChainRecord calls fn with every record of the site whose batch seq is in (afterSeq,
	// toSeq], ordered by batch seq, then batch index, then id, holding a bounded number in
	// memory; it stops at fn's first error and returns it. It may sort in the database:
	// verification is rare, and an index for it would slow every insert.
	EachChainRecord(ctx context.Context, siteID string, afterSeq, toSeq int64, fn func(*ConsentRecord) error) error
	// StrayConsentRecords returns up to limit records of the site that name no stored batch
	// (legacy records, LegacyBatchSeq, excepted), and the number of legacy records.
	StrayConsentRecords(ctx context.Context, siteID string, limit int) ([]*ConsentRecord, int, error)
}

// ChainReport is the outcome of verifying a site's chain.
type ChainReport struct {
	OK bool `json:"ok"`
	// Batches and Records are how many were checked before the first break (all when OK).
	Batches int64        `json:"batches"`
	Records int64        `json:"records"`
	Chain   ConsentChain `json:"chain"`
	// LegacyRecords were stored before the chain existed and are not covered by it.
	LegacyRecords int `json:"legacyRecords"`
	// Break is the first place where the stored log differs from what was committed.
	Break *ChainBreak `json:"break,omitempty"`
}

// ChainBreak names the first break of a chain.
type ChainBreak struct {
	BatchSeq int64  `json:"batchSeq"`
	RecordID string `json:"recordId,omitempty"`
	// Index is the record's position in its batch, -1 when the break is the batch's own.
	Index   int    `json:"index"`
	Problem string `json:"problem"`
}

// VerifyConsentChain recomputes the site's chain from the stored records and reports the first
// break: a record whose fields no longer hash to its recordHash, a batch whose records are
// missing, extra or out of order, a batch whose hash or link differs, a missing batch, a head
// that is not the last batch, or a record that names no batch. It reads a bounded number of
// batches at a time.
func VerifyConsentChain(ctx context.Context, st ConsentChainStore, siteID string) (*ChainReport, error) {
	chain, err := st.ConsentChain(ctx, siteID)
	if err != nil {
		return nil, err
	}
	rep := &ChainReport{Chain: chain}
	fail := func(seq int64, r *ConsentRecord, index int, format string, args ...any) (*ChainReport, error) {
		b := &ChainBreak{BatchSeq: seq, Index: index, Problem: fmt.Sprintf(format, args...)}
		if r != nil {
			b.RecordID = r.ID
		}
		rep.Break = b
		return rep, nil
	}
	prevSeq, prevHash := chain.AnchorSeq, chain.AnchorHash
	// Batches are read a page at a time as the record stream reaches them.
	var (
		pending  []*ConsentBatch
		fetched  = chain.AnchorSeq
		exhaust  bool
		cur      *ConsentBatch
		mine     []*ConsentRecord
		broken   = errors.New("chain broken")
		brokenAt *ChainReport
	)
	next := func() (*ConsentBatch, error) {
		if len(pending) == 0 && !exhaust {
			var err error
			if pending, err = st.ConsentBatches(ctx, siteID, fetched, chain.HeadSeq, verifyBatchPage); err != nil {
				return nil, err
			}
			if len(pending) == 0 {
				exhaust = true
			} else {
				fetched = pending[len(pending)-1].Seq
			}
		}
		if len(pending) == 0 {
			return nil, nil
		}
		b := pending[0]
		pending = pending[1:]
		return b, nil
	}
	stop := func(seq int64, r *ConsentRecord, index int, format string, args ...any) error {
		brokenAt, _ = fail(seq, r, index, format, args...)
		return broken
	}
	// finish checks the current batch with the records collected for it and moves the link on.
	finish := func() error {
		b := cur
		if b.Seq != prevSeq+1 {
			return stop(prevSeq+1, nil, -1, "batch %d is missing (the next stored batch is %d)", prevSeq+1, b.Seq)
		}
		if b.PrevHash != prevHash {
			return stop(b.Seq, nil, -1, "batch %d follows %s, but batch %d's hash is %s", b.Seq, b.PrevHash, prevSeq, prevHash)
		}
		hashes := make([]string, 0, len(mine))
		for i, r := range mine {
			if r.BatchIndex != i {
				if r.BatchIndex > i {
					return stop(b.Seq, nil, i, "record %d of batch %d is missing (found index %d next, record %s)", i, b.Seq, r.BatchIndex, r.ID)
				}
				return stop(b.Seq, r, r.BatchIndex, "record %s repeats index %d of batch %d (an inserted record)", r.ID, r.BatchIndex, b.Seq)
			}
			if got := ConsentRecordHash(r); got != r.RecordHash {
				return stop(b.Seq, r, i, "record %s: its fields hash to %s, but its recordHash is %s (a field was changed)", r.ID, got, r.RecordHash)
			}
			if r.VisitorID != "" && VisitorHash(r.VisitorSalt, r.VisitorID) != r.VisitorHash {
				return stop(b.Seq, r, i, "record %s: visitorId does not match its visitorHash", r.ID)
			}
			hashes = append(hashes, r.RecordHash)
		}
		if len(mine) != b.Records {
			return stop(b.Seq, nil, len(mine), "batch %d holds %d records, %d were committed", b.Seq, len(mine), b.Records)
		}
		if got := ConsentBatchHash(prevHash, hashes); got != b.Hash {
			return stop(b.Seq, nil, -1, "batch %d: its records and link hash to %s, but its stored hash is %s", b.Seq, got, b.Hash)
		}
		rep.Batches++
		rep.Records += int64(len(mine))
		prevSeq, prevHash = b.Seq, b.Hash
		cur, mine = nil, mine[:0]
		return nil
	}
	// advance finishes batches until the current one is the first with seq >= upTo (nil when
	// there is none left).
	advance := func(upTo int64) error {
		for {
			if cur == nil {
				var err error
				if cur, err = next(); err != nil || cur == nil {
					return err
				}
			}
			if cur.Seq >= upTo {
				return nil
			}
			if err := finish(); err != nil {
				return err
			}
		}
	}
	err = st.EachChainRecord(ctx, siteID, chain.AnchorSeq, chain.HeadSeq, func(r *ConsentRecord) error {
		if cur == nil || r.BatchSeq != cur.Seq {
			if err := advance(r.BatchSeq); err != nil {
				return err
			}
			if cur == nil || cur.Seq != r.BatchSeq {
				return stop(r.BatchSeq, r, r.BatchIndex, "record %s names batch %d, which is not stored", r.ID, r.BatchSeq)
			}
		}
		if len(mine) > 10*maxBatchRecords {
			return stop(r.BatchSeq, r, r.BatchIndex, "batch %d holds more records than any commit writes", r.BatchSeq)
		}
		mine = append(mine, r)
		return nil
	})
	if err == nil {
		err = advance(chain.HeadSeq + 1)
	}
	if errors.Is(err, broken) {
		return brokenAt, nil
	}
	if err != nil {
		return nil, err
	}
	if prevSeq != chain.HeadSeq || prevHash != chain.HeadHash {
		return fail(prevSeq+1, nil, -1, "the chain ends at batch %d (%s), but its head is batch %d (%s): batches were removed", prevSeq, prevHash, chain.HeadSeq, chain.HeadHash)
	}
	stray, legacy, err := st.StrayConsentRecords(ctx, siteID, 1)
	if err != nil {
		return nil, err
	}
	rep.LegacyRecords = legacy
	if len(stray) > 0 {
		r := stray[0]
		return fail(r.BatchSeq, r, r.BatchIndex, "record %s names batch %d, which is not part of the chain (an inserted record)", r.ID, r.BatchSeq)
	}
	rep.OK = true
	return rep, nil
}
