package banner_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/consentd/consentd/core/coretest"
)

// nodePackages is a set of npm packages the tests run in node (the snippet toolchain, the IAB's
// TC string and GPP decoders): pinned, installed once into the user's cache folder and reused
// by later runs.
type nodePackages struct {
	what     string   // what they are, for the skip and failure messages
	packages []string // name@version each
	dir      string   // the cache folder's name; change it with packages
	probes   []string // files under node_modules an installed set has

	once sync.Once
	nm   string
	err  error
}

// path returns the node_modules folder holding the packages, installing them on first use.
// Without node and npm, or when npm cannot install them, the test is skipped loudly, or fails
// when CI=true.
func (p *nodePackages) path(t *testing.T) string {
	t.Helper()
	p.once.Do(func() { p.nm, p.err = p.install() })
	if p.err != nil {
		coretest.Missing(t, fmt.Sprintf("%s is unavailable: %v (install Node.js 18+ with npm)", p.what, p.err))
	}
	return p.nm
}

func (p *nodePackages) install() (string, error) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("%s not found", tool)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "consentd-test", p.dir)
	nm := filepath.Join(dir, "node_modules")
	if p.complete(nm) {
		return nm, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	// Install next to the final folder and rename, so that an interrupted install is never
	// taken for a complete one.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"}, p.packages...)
	cmd := exec.Command("npm", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %v: %v\n%s", p.packages, err, out.String())
	}
	if !p.complete(filepath.Join(tmp, "node_modules")) {
		return "", fmt.Errorf("npm install %v left an incomplete node_modules", p.packages)
	}
	if err := os.Rename(tmp, dir); err != nil && !p.complete(nm) {
		return "", err
	}
	return nm, nil
}

func (p *nodePackages) complete(nm string) bool {
	for _, f := range p.probes {
		if _, err := os.Stat(filepath.Join(nm, f)); err != nil {
			return false
		}
	}
	return true
}
