package bunstore

import (
	"strconv"

	"github.com/uptrace/bun/schema"
)

// consentInsert is the multi-row INSERT of a batch's records, written without bun's
// reflection: building it field by field through reflection was an eighth of the server's
// CPU under ingest load. The text is exactly what bun renders for
// db.NewInsert().Model(&rows) (TestConsentInsertAsBun checks it on both dialects), with every
// value appended by the dialect's own functions. BatchSeq is always set on insert
// (fromConsent); a nil one would be NULL where bun writes DEFAULT. A nil IdempotencyKey (a post
// without one) is NULL too, where bun writes DEFAULT: the column has no default, so the same.
type consentInsert []consentRecord

const consentInsertHead = `INSERT INTO "consent_records" ("id", "site_id", "visitor_id", "ip_country", "jurisdiction", ` +
	`"categories_consented", "gpc_signal", "do_not_sell", "consent_version", "action", "created_at", "page_url", ` +
	`"user_agent", "snapshot_hash", "visitor_salt", "visitor_hash", "record_hash", "batch_seq", "batch_index", "region", "region_rule", ` +
	`"tc_string", "ac_string", "gvl_version", "gpp_string", "variant", "idempotency_key") VALUES `

// AppendQuery implements schema.QueryAppender.
func (rows consentInsert) AppendQuery(gen schema.QueryGen, b []byte) ([]byte, error) {
	d := gen.Dialect()
	b = append(b, consentInsertHead...)
	for i := range rows {
		r := &rows[i]
		cats, err := r.CategoriesConsented.Value()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '(')
		for j, s := range []string{r.ID, r.SiteID, r.VisitorID, r.IPCountry, r.Jurisdiction, cats.(string)} {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = d.AppendString(b, s)
		}
		b = append(b, ", "...)
		b = d.AppendBool(b, r.GPCSignal)
		b = append(b, ", "...)
		b = d.AppendBool(b, r.DoNotSell)
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(r.ConsentVersion), 10)
		b = append(b, ", "...)
		b = d.AppendString(b, r.Action)
		b = append(b, ", "...)
		b = d.AppendTime(b, r.CreatedAt)
		for _, s := range []string{r.PageURL, r.UserAgent, r.SnapshotHash, r.VisitorSalt, r.VisitorHash, r.RecordHash} {
			b = append(b, ", "...)
			b = d.AppendString(b, s)
		}
		b = append(b, ", "...)
		if r.BatchSeq == nil {
			b = append(b, "NULL"...)
		} else {
			b = strconv.AppendInt(b, *r.BatchSeq, 10)
		}
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(r.BatchIndex), 10)
		for _, s := range []string{r.Region, r.RegionRule, r.TCString, r.ACString} {
			b = append(b, ", "...)
			b = d.AppendString(b, s)
		}
		b = append(b, ", "...)
		b = strconv.AppendInt(b, int64(r.GVLVersion), 10)
		b = append(b, ", "...)
		b = d.AppendString(b, r.GPPString)
		b = append(b, ", "...)
		b = d.AppendString(b, r.Variant)
		b = append(b, ", "...)
		if r.IdempotencyKey == nil {
			b = append(b, "NULL"...)
		} else {
			b = d.AppendString(b, *r.IdempotencyKey)
		}
		b = append(b, ')')
	}
	return b, nil
}
