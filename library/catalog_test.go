package library

import "testing"

func TestEmbeddedCatalog(t *testing.T) {
	c, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Service("google-tag-manager"); !ok {
		t.Fatal("gtm missing")
	}
}
