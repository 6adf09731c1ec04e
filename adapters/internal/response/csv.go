package response

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/consentd/consentd/core/consent"
)

// consentColumns are the CSV export's header; NDJSON lines carry the listing's JSON fields.
var consentColumns = []string{"id", "siteId", "visitorId", "ipCountry", "jurisdiction", "categoriesConsented",
	"gpcSignal", "doNotSell", "consentVersion", "action", "createdAt",
	"pageUrl", "userAgent", "snapshotHash", "visitorSalt", "visitorHash", "recordHash",
	"batchSeq", "batchIndex", "batchHash", "prevBatchHash", "region", "regionRule",
	"tcString", "acString", "gvlVersion", "gppString"}

// ConsentColumns returns the header of the CSV export of consent records.
func ConsentColumns() []string { return slices.Clone(consentColumns) }

// ConsentRow is a consent record as a row of the CSV export, in ConsentColumns' order;
// categoriesConsented is a JSON object, client-supplied text is defused (CSVSafe).
func ConsentRow(r *consent.ConsentRecord) []string {
	cats, _ := json.Marshal(r.CategoriesConsented) // a map[string]bool always marshals
	return []string{
		r.ID, r.SiteID, CSVSafe(r.VisitorID), CSVSafe(r.IPCountry), r.Jurisdiction, string(cats),
		strconv.FormatBool(r.GPCSignal), strconv.FormatBool(r.DoNotSell), strconv.Itoa(r.ConsentVersion),
		r.Action, r.CreatedAt.UTC().Format(time.RFC3339Nano),
		CSVSafe(r.PageURL), r.UserAgent, r.SnapshotHash, r.VisitorSalt, r.VisitorHash, r.RecordHash,
		strconv.FormatInt(r.BatchSeq, 10), strconv.Itoa(r.BatchIndex), r.BatchHash, r.PrevBatchHash,
		r.Region, r.RegionRule, r.TCString, r.ACString, strconv.Itoa(r.GVLVersion), r.GPPString,
	}
}

// CSVSafe defuses spreadsheet formula injection in client-supplied text (OWASP's advice): a
// cell starting with =, +, -, @, tab or carriage return gets a leading single quote.
func CSVSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
