package bannerjs_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/consentd/consentd/core/coretest"
)

// TestNodeUnit runs the runtime modules' unit tests (*.test.mjs beside them: the policy, the
// blocking rules the guard applies, the TC and GPP string encoders) with node's built-in test
// runner, which needs no package. Without node the test is skipped loudly, or fails when
// CI=true. The Chromium suites check the runtime as a whole; these check each rule quickly.
func TestNodeUnit(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		coretest.Missing(t, "node is not installed, so the runtime's unit tests (*.test.mjs) do not run (install Node.js 18+)")
	}
	files, err := filepath.Glob("*.test.mjs")
	if err != nil || len(files) < 4 {
		t.Fatalf("unit test files: %v %v", files, err)
	}
	cmd := exec.Command(node, append([]string{"--test", "--test-reporter=tap"}, files...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test %v: %v\n%s", files, err, out.String())
	}
	if testing.Verbose() {
		t.Log(out.String())
	}
}
