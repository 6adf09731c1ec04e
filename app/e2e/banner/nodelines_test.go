package banner_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"sync"
	"testing"
)

// nodeLinesLoop defines serveLines(f) for a node script: it answers each line of standard
// input (a JSON value) with a line of standard output, {"ok": f(value)} or {"error": what f
// threw}.
const nodeLinesLoop = `
function serveLines(f) {
  require('readline').createInterface({input: process.stdin}).on('line', (line) => {
    let r;
    try { r = {ok: f(JSON.parse(line))}; } catch (e) { r = {error: String((e && e.stack) || e)}; }
    process.stdout.write(JSON.stringify(r) + '\n');
  });
}
`

// nodeLines is a node process of a test that answers requests one line at a time (see
// nodeLinesLoop): one process for many calls, where a process per call cost about 0.2 s of
// processor time each (node's start and the library's load).
type nodeLines struct {
	mu     sync.Mutex
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
}

// lockedBuffer is a bytes.Buffer that node's standard error is copied into while a failing
// call reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startNodeLines runs script in node with args; the process ends with the test.
func startNodeLines(t *testing.T, script string, args ...string) *nodeLines {
	t.Helper()
	cmd := exec.Command("node", append([]string{"-e", script, "--"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	n := &nodeLines{in: in, out: bufio.NewReader(out), stderr: &lockedBuffer{}}
	cmd.Stderr = n.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("node: %v\n%s", err, n.stderr)
		}
	})
	return n
}

// call sends in and decodes the answer into out; an error thrown in node fails the test with
// what, in and the error.
func (n *nodeLines) call(t *testing.T, what string, in, out any) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, err := n.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("%s %s: writing to node: %v\n%s", what, b, err, n.stderr)
	}
	line, err := n.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("%s %s: reading from node: %v\n%s", what, b, err, n.stderr)
	}
	var r struct {
		OK    json.RawMessage `json:"ok"`
		Error *string         `json:"error"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("%s %s: node answered %q: %v", what, b, line, err)
	}
	if r.Error != nil {
		t.Fatalf("%s %s: %s", what, b, *r.Error)
	}
	if err := json.Unmarshal(r.OK, out); err != nil {
		t.Fatalf("%s %s: decoder output %s: %v", what, b, r.OK, err)
	}
}
