package crawler

import (
	"context"
	"net/http"

	"github.com/consentd/consentd/crawler/extract"
)

// A third-party script a page asks for that never loads (its host does not resolve, the
// connection is refused, the CDN answers an error) serves no visitor, and its tag is still on
// the page: the owner must hear of it. A browser scan sees the failure as the browser does; a
// static scan asks for each unrecognized script once, as a browser would, and lists the
// failure beside it. Scripts of library services are not asked for: they are judged by their
// URL whether or not they load.

// maxProbes bounds the unrecognized scripts a static scan asks for.
const maxProbes = 32

// probeScripts asks, once per scan each and at most maxProbes in all, for the page's
// unrecognized third-party scripts, and lists those that fail with why.
func (s *scan) probeScripts(rep *extract.Report, page string) {
	var failed extract.Report
	for _, u := range rep.Unrecognized {
		s.mu.Lock()
		done := s.probed[u.Src] || len(s.probed) >= maxProbes
		if !done {
			s.probed[u.Src] = true
		}
		s.mu.Unlock()
		if done {
			continue
		}
		if msg := s.probe(u.Src, page); msg != "" {
			u.Err = msg
			failed.Unrecognized = append(failed.Unrecognized, u)
		}
	}
	if len(failed.Unrecognized) > 0 {
		s.merge(&failed, false)
	}
}

// probe requests one script and returns why it did not load, "" when it did. The answer's
// cookies are not the page's: the request goes out without the scan's cookie jar and
// recorder, and its body is not read.
func (s *scan) probe(src, page string) string {
	req, err := http.NewRequestWithContext(context.WithValue(s.ctx, pageKey{}, page), http.MethodGet, src, nil)
	if err != nil {
		return ""
	}
	req.Header.Set("User-Agent", s.opts.UserAgent)
	req.Header.Set("Accept", "*/*")
	req.Header.Set("Referer", page)
	resp, err := s.probeClient.Do(req)
	if err != nil {
		if s.ctx.Err() != nil {
			return "" // the scan stopped, not the script
		}
		return fetchMessage(err)
	}
	resp.Body.Close()
	return loadError(resp.StatusCode, "")
}
