package library

// acMatcher finds which of a set of literals occur in a text, ASCII case-insensitively, in one
// pass: an Aho-Corasick automaton compiled to a dense DFA over byte classes (the bytes that occur
// in some literal each get a class, all others share class 0), so a step is two array loads.
// States are numbered breadth-first, those where a literal ends last: the shallow states where a
// scan spends nearly all its time share a few cache lines, a transition is the next state's row
// offset (one add and one load per byte), and "a literal ends here" is a comparison off that
// chain.
type acMatcher struct {
	class    [256]uint8
	nclass   int
	delta    []int32   // row offset (state*nclass) + class → next row offset
	outStart int32     // row offsets from here on are states where literals end
	out      [][]int32 // state → literals ending here (including via failure links)
	literals []string
}

func foldByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func newACMatcher(literals []string) *acMatcher {
	if len(literals) == 0 {
		return nil
	}
	m := &acMatcher{literals: literals}
	n := 1
	for _, l := range literals {
		for i := 0; i < len(l); i++ {
			c := foldByte(l[i])
			if m.class[c] == 0 {
				if n == 255 {
					continue // more than 254 distinct bytes: extra ones share class 0 below
				}
				m.class[c] = uint8(n)
				n++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	m.nclass = n
	// Build the trie.
	type node struct {
		next map[uint8]int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	for li, l := range literals {
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := m.class[l[i]]
			nx, ok := nodes[s].next[c]
			if !ok {
				nx = int32(len(nodes))
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nodes[s].next[c] = nx
			}
			s = nx
		}
		nodes[s].out = append(nodes[s].out, int32(li))
	}
	// Breadth-first order: the new state numbers, failure links and the dense transition table
	// (in trie numbers first).
	order := []int32{0}
	for i := 0; i < len(order); i++ {
		s := order[i]
		for c := 0; c < n; c++ {
			if nx, ok := nodes[s].next[uint8(c)]; ok {
				order = append(order, nx)
			}
		}
	}
	delta := make([]int32, len(nodes)*n)
	fail := make([]int32, len(nodes))
	for _, s := range order {
		if s != 0 {
			nodes[s].out = append(nodes[s].out, nodes[fail[s]].out...)
		}
		for c := 0; c < n; c++ {
			nx, ok := nodes[s].next[uint8(c)]
			switch {
			case ok && s == 0:
				delta[c] = nx
			case ok:
				fail[nx] = delta[int(fail[s])*n+c]
				delta[int(s)*n+c] = nx
			case s != 0:
				delta[int(s)*n+c] = delta[int(fail[s])*n+c]
			}
		}
	}
	// Renumber: states without output in breadth-first order, then those with output.
	var final []int32
	for _, s := range order {
		if len(nodes[s].out) == 0 {
			final = append(final, s)
		}
	}
	m.outStart = int32(len(final) * n)
	for _, s := range order {
		if len(nodes[s].out) > 0 {
			final = append(final, s)
		}
	}
	renum := make([]int32, len(nodes))
	for i, s := range final {
		renum[s] = int32(i)
	}
	m.delta = make([]int32, len(nodes)*n)
	m.out = make([][]int32, len(nodes))
	for _, s := range final {
		row := int(renum[s]) * n
		m.out[renum[s]] = nodes[s].out
		for c := 0; c < n; c++ {
			m.delta[row+c] = renum[delta[int(s)*n+c]] * int32(n)
		}
	}
	return m
}

// scan calls hit for each literal occurrence in text (a literal may be reported many times).
// FindTrackingIDs runs the same loop inline.
func (m *acMatcher) scan(text string, hit func(lit int32, end int)) {
	st := int32(0)
	for i := 0; i < len(text); i++ {
		st = m.delta[st+int32(m.class[text[i]])]
		if st >= m.outStart {
			for _, l := range m.out[int(st)/m.nclass] {
				hit(l, i+1)
			}
		}
	}
}
