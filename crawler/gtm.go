package crawler

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/consentd/consentd/crawler/extract"
)

// containerURL is where a GTM container's script is served.
const containerURL = "https://www.googletagmanager.com/gtm.js?id="

// tagManagers fetches the containers of the GTM IDs a page revealed, once per scan each.
func (s *scan) tagManagers(rep *extract.Report, page string) {
	var ids []string
	for _, h := range rep.Hits {
		if h.Service.Slug == extract.TagManagerSlug && strings.HasPrefix(h.ID, "GTM-") {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		if hasService(rep, extract.TagManagerSlug) {
			s.markInjects()
		}
		return
	}
	s.markInjects()
	sort.Strings(ids)
	for _, id := range ids {
		s.mu.Lock()
		done := s.gtmSeen[id]
		s.gtmSeen[id] = true
		s.mu.Unlock()
		if !done {
			s.container(id, page)
		}
	}
}

func hasService(rep *extract.Report, slug string) bool {
	for _, h := range rep.Hits {
		if h.Service.Slug == slug {
			return true
		}
	}
	return false
}

func (s *scan) markInjects() {
	s.mu.Lock()
	if a := s.services[extract.TagManagerSlug]; a != nil {
		a.injectTags = true
	}
	s.mu.Unlock()
}

// container fetches one GTM container and fingerprints the tags it configures.
func (s *scan) container(id, page string) {
	u := containerURL + url.QueryEscape(id)
	req, err := http.NewRequestWithContext(context.WithValue(s.ctx, pageKey{}, page), http.MethodGet, u, nil)
	if err != nil {
		return
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	resp, err := s.client.Do(req)
	if err != nil {
		s.pageError(u, 0, "tag manager container could not be fetched: "+fetchMessage(err))
		return
	}
	defer resp.Body.Close()
	body, over, err := readLimited(resp.Body, s.opts.MaxBodyBytes)
	if err != nil {
		s.pageError(u, resp.StatusCode, "tag manager container could not be read: "+err.Error())
		return
	}
	if resp.StatusCode != http.StatusOK {
		s.pageError(u, resp.StatusCode, fmt.Sprintf("tag manager container answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
		return
	}
	if over {
		s.pageError(u, resp.StatusCode, fmt.Sprintf("tag manager container exceeds the limit of %d bytes; only the first %d bytes were scanned", s.opts.MaxBodyBytes, s.opts.MaxBodyBytes))
	}
	cu, _ := url.Parse(u)
	s.merge(extract.AnalyzeContainer(s.e.ix, s.domainOf, cu, page, body), false)
}

// readLimited reads at most limit bytes of r and says whether there was more.
func readLimited(r io.Reader, limit int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r, limit+1))
	if err != nil {
		return nil, false, err
	}
	if n > limit {
		return buf.Bytes()[:limit], true, nil
	}
	return buf.Bytes(), false, nil
}
