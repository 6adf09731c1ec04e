package memstore

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/consent"
)

// proofData is the memory store's side of proof of consent: every record is a batch of its
// own (there is no group commit here), which the chain allows.
type proofData struct {
	chains    map[string]consent.ConsentChain
	batches   map[string][]consent.ConsentBatch // by site, in seq order
	snapshots map[[2]string]banner.ConsentSnapshot
}

func (p proofData) clone() proofData {
	c := proofData{chains: maps.Clone(p.chains), batches: map[string][]consent.ConsentBatch{},
		snapshots: maps.Clone(p.snapshots)}
	for k, v := range p.batches {
		c.batches[k] = slices.Clone(v)
	}
	return c
}

func (p *proofData) init() {
	if p.chains == nil {
		*p = proofData{chains: map[string]consent.ConsentChain{}, batches: map[string][]consent.ConsentBatch{},
			snapshots: map[[2]string]banner.ConsentSnapshot{}}
	}
}

func (p *proofData) deleteSite(id string) {
	p.init()
	delete(p.chains, id)
	delete(p.batches, id)
	maps.DeleteFunc(p.snapshots, func(k [2]string, _ banner.ConsentSnapshot) bool { return k[0] == id })
}

func (p *proofData) chainOf(site string) consent.ConsentChain {
	p.init()
	c, ok := p.chains[site]
	if !ok {
		c = consent.ConsentChain{HeadHash: core.GenesisHash, AnchorHash: core.GenesisHash}
	}
	return c
}

// chain makes r a batch of its own at the head of its site's chain.
func (p *proofData) chain(r *consent.ConsentRecord) {
	c := p.chainOf(r.SiteID)
	h := consent.ChainConsentBatch(c.HeadSeq, c.HeadHash, []*consent.ConsentRecord{r})
	c.HeadSeq, c.HeadHash = c.HeadSeq+1, h
	p.chains[r.SiteID] = c
	p.batches[r.SiteID] = append(p.batches[r.SiteID], consent.ConsentBatch{SiteID: r.SiteID, Seq: c.HeadSeq, Hash: h,
		PrevHash: r.PrevBatchHash, Records: 1, NewestAt: r.CreatedAt})
}

// link fills a record's batch hashes, as exports carry them.
func (p *proofData) link(r *consent.ConsentRecord) {
	p.init()
	for _, b := range p.batches[r.SiteID] {
		if b.Seq == r.BatchSeq {
			r.BatchHash, r.PrevBatchHash = b.Hash, b.PrevHash
		}
	}
}

// SaveConsentSnapshot implements core.ConsentStore.
func (s *Store) SaveConsentSnapshot(_ context.Context, x *banner.ConsentSnapshot) error {
	defer s.lock()()
	if _, ok := s.d.sites[x.SiteID]; !ok {
		return notFound("site")
	}
	s.d.proof.init()
	k := [2]string{x.SiteID, x.Hash}
	if _, ok := s.d.proof.snapshots[k]; !ok {
		c := *x
		c.Content = slices.Clone(x.Content)
		s.d.proof.snapshots[k] = c
	}
	return nil
}

// ConsentSnapshot implements core.ConsentStore.
func (s *Store) ConsentSnapshot(_ context.Context, siteID, hash string) (*banner.ConsentSnapshot, error) {
	defer s.lock()()
	s.d.proof.init()
	x, ok := s.d.proof.snapshots[[2]string{siteID, hash}]
	if !ok {
		return nil, notFound("snapshot")
	}
	x.Content = slices.Clone(x.Content)
	return &x, nil
}

// EraseConsentVisitor implements core.ConsentStore.
func (s *Store) EraseConsentVisitor(_ context.Context, siteID, visitorID string) (int, error) {
	defer s.lock()()
	n := 0
	for i := range s.d.consents {
		if r := &s.d.consents[i]; r.SiteID == siteID && r.VisitorID == visitorID {
			r.VisitorID, r.VisitorSalt = "", ""
			n++
		}
	}
	return n, nil
}

// RemoveConsentBatches implements core.ConsentStore.
func (s *Store) RemoveConsentBatches(_ context.Context, siteID string, before time.Time, limit int) (int, error) {
	defer s.lock()()
	p := &s.d.proof
	p.init()
	bs := p.batches[siteID]
	k := 0
	for k < len(bs) && k < limit && bs[k].NewestAt.Before(before) {
		k++
	}
	if k == 0 {
		return 0, nil
	}
	last := bs[k-1]
	n := len(s.d.consents)
	s.d.consents = slices.DeleteFunc(s.d.consents, func(r consent.ConsentRecord) bool {
		return r.SiteID == siteID && ((r.BatchSeq >= 1 && r.BatchSeq <= last.Seq) || (r.BatchSeq == consent.LegacyBatchSeq && r.CreatedAt.Before(before)))
	})
	p.batches[siteID] = slices.Clone(bs[k:])
	c := p.chains[siteID]
	c.AnchorSeq, c.AnchorHash = last.Seq, last.Hash
	p.chains[siteID] = c
	return n - len(s.d.consents), nil
}

// ConsentChain implements core.ConsentChainStore.
func (s *Store) ConsentChain(_ context.Context, siteID string) (consent.ConsentChain, error) {
	defer s.lock()()
	if _, ok := s.d.sites[siteID]; !ok {
		return consent.ConsentChain{}, notFound("site")
	}
	return s.d.proof.chainOf(siteID), nil
}

// ConsentBatches implements core.ConsentChainStore.
func (s *Store) ConsentBatches(_ context.Context, siteID string, afterSeq, maxSeq int64, limit int) ([]*consent.ConsentBatch, error) {
	defer s.lock()()
	s.d.proof.init()
	var out []*consent.ConsentBatch
	for _, b := range s.d.proof.batches[siteID] {
		if b.Seq > afterSeq && b.Seq <= maxSeq && len(out) < limit {
			out = append(out, &b)
		}
	}
	return out, nil
}

// EachChainRecord implements core.ConsentChainStore.
func (s *Store) EachChainRecord(_ context.Context, siteID string, afterSeq, toSeq int64, fn func(*consent.ConsentRecord) error) error {
	unlock := s.lock()
	var out []*consent.ConsentRecord
	for _, r := range s.d.consents {
		if r.SiteID == siteID && r.BatchSeq > afterSeq && r.BatchSeq <= toSeq {
			c := r
			c.CategoriesConsented = maps.Clone(r.CategoriesConsented)
			out = append(out, &c)
		}
	}
	unlock()
	slices.SortFunc(out, func(a, b *consent.ConsentRecord) int {
		return cmp.Or(cmp.Compare(a.BatchSeq, b.BatchSeq), cmp.Compare(a.BatchIndex, b.BatchIndex), cmp.Compare(a.ID, b.ID))
	})
	for _, r := range out {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// StrayConsentRecords implements core.ConsentChainStore.
func (s *Store) StrayConsentRecords(_ context.Context, siteID string, limit int) ([]*consent.ConsentRecord, int, error) {
	defer s.lock()()
	s.d.proof.init()
	seqs := map[int64]bool{}
	for _, b := range s.d.proof.batches[siteID] {
		seqs[b.Seq] = true
	}
	var out []*consent.ConsentRecord
	legacy := 0
	for _, r := range s.d.consents {
		switch {
		case r.SiteID != siteID:
		case r.BatchSeq == consent.LegacyBatchSeq:
			legacy++
		case !seqs[r.BatchSeq] && len(out) < limit:
			c := r
			out = append(out, &c)
		}
	}
	return out, legacy, nil
}

// ConsentRegionCounts implements core.ConsentStore.
func (s *Store) ConsentRegionCounts(_ context.Context, siteID string, from, to time.Time) (map[string]int64, error) {
	defer s.lock()()
	out := map[string]int64{}
	for _, r := range s.d.consents {
		if r.SiteID != siteID || r.CreatedAt.Before(from) || !r.CreatedAt.Before(to) {
			continue
		}
		place := r.Region
		if place == "" {
			place = r.IPCountry
		}
		out[place]++
	}
	return out, nil
}
