package crawler

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// tlsConfig returns base with the extra root CA of opts trusted next to the system's, or base
// itself when there is none.
func (o Options) tlsConfig(base *tls.Config) (*tls.Config, error) {
	pem := o.RootCAPEM
	what := "the extra root CA certificate"
	if o.RootCAFile != "" {
		b, err := os.ReadFile(o.RootCAFile)
		if err != nil {
			return nil, &Error{Kind: KindInvalidInput, Message: fmt.Sprintf("the extra root CA file %s could not be read: %v", o.RootCAFile, err), Err: err}
		}
		pem = append(append(pem[:len(pem):len(pem)], '\n'), b...)
		what = "the extra root CA file " + o.RootCAFile
	}
	if len(pem) == 0 {
		return base, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, &Error{Kind: KindInvalidInput, Message: what + " holds no PEM certificate"}
	}
	var cfg *tls.Config
	if base != nil {
		cfg = base.Clone()
	} else {
		cfg = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	cfg.RootCAs = pool
	return cfg, nil
}
