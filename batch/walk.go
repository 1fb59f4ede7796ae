package batch

import (
	"context"
	"sync"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// Against a service whose answers do not name their addresses, each
// address that was listed before a batch is paired with its entry by a
// look-up (GET /suppressions/{email}), one request each; reading the list
// pairs up to 100 a request. A run reads the list instead where that
// takes fewer requests: it walks the list from the newest entry down,
// keeping what it sees of its own addresses, and goes on only while the
// pages pay: a page more is read while the pages read are fewer than the
// addresses they paired plus a tenth of the addresses still to pair. When
// the run's addresses are spread over the list as any others, pages pair
// more than one address each only when the list is shorter than the
// addresses to pair, and the walk then reads it to its end (its pages,
// fewer than the look-ups); on a longer list it stops after a tenth of the
// look-ups' worth and looks up the rest: at most 1.1 times the smaller of
// the two. Addresses bunched at the list's far end can make it read more
// before it stops; never more than the look-ups it replaced plus that
// tenth.

// worthAnotherPage is the rule above: pages read so far, addresses they
// paired, and addresses still to pair.
func worthAnotherPage(pages, paired, left int) bool {
	return left > 0 && pages < paired+left/10
}

// pairing is a run's walk of the list below the mark of the batch that
// started it: every entry there was listed before that mark was taken, so
// an address of a batch sent after it that the walk finds was listed
// before that batch, with that entry.
type pairing struct {
	mu sync.Mutex
	// clock orders the marks and the batches of the run: a batch may use
	// the walk when the walk's mark was taken before the batch was sent.
	clock   int64
	from    int64 // the clock at the walk's mark; 0 before it started
	cursor  string
	ended   bool
	pages   int
	paired  int
	entries map[string]api.Entry
	// values are the addresses of the segment being sent, and want the
	// same as a set, made when the walk first needs it: the walk keeps
	// only what it sees of them.
	values []string
	want   map[string]bool
}

// segment makes the walk keep the addresses of the segment about to be
// sent (values) from now on.
func (p *pairing) segment(values []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.values, p.want = values, nil
}

// wanted is the segment's addresses as a set. Called with p.mu held.
func (p *pairing) wanted() map[string]bool {
	if p.want == nil {
		p.want = make(map[string]bool, len(p.values))
		for _, v := range p.values {
			p.want[v] = true
		}
	}
	return p.want
}

// tick advances the run's clock and returns it.
func (p *pairing) tick() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clock++
	return p.clock
}

// start begins the walk below a batch's mark, taken at clock at, with the
// entries of the mark's page below it and where that page ends (more says
// the list goes on beyond it). A walk begins once.
func (p *pairing) start(at int64, below []api.Entry, last string, more bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.from != 0 {
		return
	}
	p.from, p.cursor, p.ended = at, last, !more
	p.note(below)
}

// note keeps the entries a page of the walk showed of the segment's
// addresses and counts them. Called with p.mu held.
func (p *pairing) note(entries []api.Entry) {
	if p.entries == nil {
		p.entries = map[string]api.Entry{}
	}
	want := p.wanted()
	for _, e := range entries {
		if _, seen := p.entries[e.Email]; !seen && want[e.Email] {
			p.entries[e.Email] = e
			p.paired++
		}
	}
}

// found returns the walk's entry of an address for a batch sent at clock
// sent, when the walk saw one before it.
func (p *pairing) found(email string, sent int64) (api.Entry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.from == 0 || p.from >= sent {
		return api.Entry{}, false
	}
	e, ok := p.entries[email]
	return e, ok
}

// pair walks on while it pays (worthAnotherPage) until it has seen every
// address of want or the list's end, and says whether it reached the end
// (an address of want it did not see was not listed before the walk's
// mark).
func (r *runner) pair(ctx context.Context, want []string) bool {
	p := &r.pairs
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.from == 0 {
		return false
	}
	left := func() int {
		n := 0
		for _, v := range want {
			if _, ok := p.entries[v]; !ok {
				n++
			}
		}
		return n
	}
	for !p.ended && worthAnotherPage(p.pages, p.paired, left()) {
		page, err := r.client.List(ctx, client.ListParams{Limit: api.MaxBatch, After: p.cursor})
		if err != nil {
			return false
		}
		p.pages++
		p.note(page.Data)
		if !page.HasMore || len(page.Data) == 0 {
			p.ended = true
			break
		}
		p.cursor = page.Data[len(page.Data)-1].ID
	}
	return p.ended
}

// listScan is a walk of the list from its newest entry down for the
// addresses a check asks about, kept across its chunks: what it saw, and
// whether it reached the end (an address it did not see is then not
// listed).
type listScan struct {
	mu     sync.Mutex
	cursor string
	ended  bool
	pages  int
	paired int
	seen   map[string]api.Entry
	asked  map[string]bool
}

// ask counts the addresses of want among those asked about; one a page
// read for another chunk showed is paired already. Called with s.mu held.
func (s *listScan) ask(want []string) {
	if s.seen == nil {
		s.seen, s.asked = map[string]api.Entry{}, map[string]bool{}
	}
	for _, v := range want {
		if s.asked[v] {
			continue
		}
		s.asked[v] = true
		if _, ok := s.seen[v]; ok {
			s.paired++
		}
	}
}

// keep keeps every entry of a page (the walk reads only as many pages as
// pay for the addresses asked): a later chunk's addresses are there.
// Called with s.mu held.
func (s *listScan) keep(entries []api.Entry) {
	for _, e := range entries {
		if _, dup := s.seen[e.Email]; !dup {
			s.seen[e.Email] = e
			if s.asked[e.Email] {
				s.paired++
			}
		}
	}
}

// walk reads on as long as it pays (worthAnotherPage) for the addresses
// of want it has not seen, and says what it knows of each: its entry, and
// whether it knows at all. A failed read ends the walk for this call: the
// look-ups remain.
func (s *listScan) walk(ctx context.Context, c *client.Client, want []string) (found []Found, known []bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ask(want)
	left := func() int {
		n := 0
		for _, v := range want {
			if _, ok := s.seen[v]; !ok {
				n++
			}
		}
		return n
	}
	for !s.ended && worthAnotherPage(s.pages, s.paired, left()) {
		page, err := c.List(ctx, client.ListParams{Limit: api.MaxBatch, After: s.cursor})
		if err != nil {
			break
		}
		s.pages++
		s.keep(page.Data)
		if !page.HasMore || len(page.Data) == 0 {
			s.ended = true
			break
		}
		s.cursor = page.Data[len(page.Data)-1].ID
	}
	found, known = make([]Found, len(want)), make([]bool, len(want))
	for i, v := range want {
		e, ok := s.seen[v]
		found[i] = Found{Input: v, Listed: ok, Entry: e}
		known[i] = ok || s.ended
	}
	return found, known
}
