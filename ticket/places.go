package ticket

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
)

// A request names its targets together: on the line that asks, in the
// list under it, in the bounce report it passes on. When the addresses a
// proposal would send stand in places of the ticket apart from each other
// (a second paragraph, an older mail, the lines under a closing), the
// rule has taken in an address by reasoning about the text around it, and
// a careful agent looks before sending: the proposal asks. So it does
// when a bounce report under the request failed for an address the
// proposal leaves out: the request may be about that one.

// blocks are where the text's blocks begin: the lines with text after an
// empty one, but for one under a line that ends with ':' (a list
// announced). A text with more blocks than maxBlocks is a list or a dump,
// not a mail; its places are not weighed.
type blocks struct {
	starts []int
	full   bool
}

// maxBlocks bounds the blocks kept.
const maxBlocks = 4096

func (b *blocks) begin(line int) {
	if len(b.starts) == maxBlocks {
		b.full = true
		return
	}
	b.starts = append(b.starts, line)
}

// of is the block of line: how many blocks begin at or before it.
func (b *blocks) of(line int) int {
	return sort.SearchInts(b.starts, line+1)
}

// place is where a target stands: a block of the text, or a whole bounce
// report, and its first line.
type place struct {
	key, line int
	values    []string
}

// scattered asks, for a proposal that changes the list, when its targets
// stand in more than one place, or when it leaves out an address a
// bounce report under the request failed for.
func (t *Ticket) scattered(w *weighing, own Own) {
	if !w.p.Mode.Changes() || t.words == 0 || t.blocks.full || len(t.order) >= maxRecords {
		return
	}
	var places []*place
	var failed []string
	if w.p.Mode == ModeRemoveIDs {
		places = t.idPlaces(w, own)
		t.idsNamedAgain(w, places, own)
	} else {
		places, failed = t.places(w, own)
	}
	if len(places) > 0 && len(failed) > 0 {
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("the bounce below failed for %s, not a target: check which is meant", strings.Join(failed, ", ")))
	}
	for _, k := range t.bracketedNot(w, places) {
		w.p.Evidence = append(w.p.Evidence, Said{Line: k.line, Text: t.lines[k.line], Says: "says not beside " + k.value})
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d says not in brackets beside %s: check it is meant", k.line, k.value))
	}
	for _, k := range t.keptTargets(w, places) {
		w.p.Evidence = append(w.p.Evidence, Said{Line: k.line, Text: t.lines[k.line], Says: "change nothing for " + k.value})
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d says to change nothing for %s: check it is meant", k.line, k.value))
	}
	for _, k := range t.keptInNotes(places) {
		w.p.Evidence = append(w.p.Evidence, Said{Line: k.line, Text: t.lines[k.line], Says: "an agent's note keeps " + k.value})
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("an agent's note on line %d speaks of %s and keeps something: check it is meant", k.line, k.value))
	}
	if line, names := t.byName(w, places); line > 0 {
		w.p.Evidence = append(w.p.Evidence, Said{Line: line, Text: t.lines[line], Says: "speaks of " + strings.Join(names, ", ") + " by name"})
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d speaks of %s by name: check which addresses are meant", line, strings.Join(names, ", ")))
	}
	if len(places) < 2 {
		return
	}
	lines := make([]string, len(places))
	for i, p := range places {
		lines[i] = fmt.Sprint(p.line)
		w.p.Evidence = append(w.p.Evidence, Said{Line: p.line, Text: t.lines[p.line], Says: "targets here: " + strings.Join(p.values, ", ")})
	}
	w.p.Ask = append(w.p.Ask, fmt.Sprintf("targets stand apart (lines %s): check each is meant", strings.Join(lines, ", ")))
}

// places are where the proposal's targets stand, in the ticket's order,
// and the bounce reports' failed recipients it leaves out as an older
// mail's.
func (t *Ticket) places(w *weighing, own Own) (places []*place, failed []string) {
	dir := w.p.Mode.direction()
	f := t.factsOf(*w, own)
	var at placing
	for _, v := range t.order {
		d := t.decide(v, t.records[v], own, f).For(dir)
		if d.Leave {
			if d.Reason == ReasonOlder && t.failedRecipient(v) {
				failed = append(failed, v)
			}
			continue
		}
		key, line := t.placeOf(v, d, w)
		at.add(key, line, v)
	}
	sort.Slice(at.places, func(i, j int) bool { return at.places[i].line < at.places[j].line })
	return at.places, failed
}

// placing gathers values into their places, in the order first met.
type placing struct {
	places []*place
	byKey  map[int]*place
}

// add puts v in the place key, which begins at line when it is new.
func (g *placing) add(key, line int, v string) {
	p := g.byKey[key]
	if p == nil {
		if g.byKey == nil {
			g.byKey = map[int]*place{}
		}
		p = &place{key: key, line: line}
		g.byKey[key] = p
		g.places = append(g.places, p)
	}
	p.values = append(p.values, v)
}

// idPlaces are where the suppression IDs a removal by ID sends stand: every
// place a mail not ours names one (a later comment that names one of them
// again may keep it in words the rule does not read).
func (t *Ticket) idPlaces(w *weighing, own Own) []*place {
	sent := map[string]bool{}
	for _, id := range t.ids {
		if v, err := api.NormalizeID(id.value); err == nil && w.targets[id.msg] {
			_, kept := t.keptIDs[v]
			_, unpicked := w.ordinalKept[v]
			if !kept && !unpicked {
				sent[v] = true
			}
		}
	}
	var at placing
	type placed struct {
		key int
		v   string
	}
	seen := map[placed]bool{}
	for _, id := range t.ids {
		v, _ := api.NormalizeID(id.value)
		key := t.blocks.of(id.line)
		if sent[v] && !seen[placed{key, v}] && !t.ours(id.msg, own) {
			seen[placed{key, v}] = true
			at.add(key, id.line, v)
		}
	}
	return at.places
}

// stub is a word that may be the first characters of a suppression ID
// ("el primero (el 3b7e...)", "the one starting 9f0d"), and its line.
type stub struct {
	hex  string
	line int
}

// maxStubs bounds the stubs kept: a ticket names an ID by its start a
// few times, not thousands.
const maxStubs = 64

// stubs notes the words of line n that may be the start of an ID: four
// to twelve hexadecimal characters, digits and letters both.
func (r *Reader) stubs(n int) {
	for _, w := range r.ws {
		h := strings.ToLower(strings.TrimRight(w.s, ".…"))
		if len(h) < 4 || len(h) > 12 || len(r.tk.stubs) >= maxStubs || strings.Trim(h, "0123456789abcdef") != "" ||
			strings.Trim(h, "0123456789") == "" || strings.Trim(h, "abcdef") == "" {
			continue
		}
		r.tk.stubs = append(r.tk.stubs, stub{hex: h, line: n})
	}
}

// idsNamedAgain asks when a line names one of the IDs of places by its
// start only (unless the places the words pick among the IDs are
// followed) or names one again.
func (t *Ticket) idsNamedAgain(w *weighing, places []*place, own Own) {
	if w.ordinalKept != nil {
		// The places the words pick are followed: naming an ID again
		// or by its start is how they say which.
		return
	}
	if at := t.stubbed(places); at > 0 {
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d names an ID by its first characters: choose the IDs by hand", at))
	} else if at := t.namedAgain(places, own); at > 0 {
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d names an ID again: check it is still to go", at))
	}
}

// stubbed is the first line that names one of the IDs of places by its
// start only, after the ID itself was named ("release a1…, b2…" and then
// "the first one (the 3b7e…) stays"), 0 for none.
func (t *Ticket) stubbed(places []*place) int {
	first := map[string]int{}
	for _, p := range places {
		for _, v := range p.values {
			first[v] = 0
		}
	}
	for _, id := range t.ids {
		if v, err := api.NormalizeID(id.value); err == nil {
			if at, ok := first[v]; ok && (at == 0 || id.line < at) {
				first[v] = id.line
			}
		}
	}
	for _, s := range t.stubs {
		for v, at := range first {
			if strings.HasPrefix(v, s.hex) && s.line > at {
				return s.line
			}
		}
	}
	return 0
}

// namedAgain is the first line that names one of the IDs of places again,
// after the line that named it first (a subject's preview aside), in a
// mail not ours: 0 for none.
func (t *Ticket) namedAgain(places []*place, own Own) int {
	sent := map[string]int{}
	for _, p := range places {
		for _, v := range p.values {
			sent[v] = 0
		}
	}
	for _, id := range t.ids {
		v, _ := api.NormalizeID(id.value)
		at, ok := sent[v]
		if !ok || t.ours(id.msg, own) || id.line == t.mails[id.msg].subject {
			continue
		}
		if at != 0 && id.line != at {
			return id.line
		}
		sent[v] = id.line
	}
	return 0
}

// failedRecipient reports an address a bounce report of the ticket
// failed to reach: in its words, past where it begins to be one.
func (t *Ticket) failedRecipient(v string) bool {
	for _, o := range t.records[v].occ {
		if m := t.mails[o.msg]; m.bounce && o.zone == zBody && o.line >= m.bounceAt {
			return true
		}
	}
	return false
}

// placeOf is where the target v stands for the proposal: in the question
// of ours the newest mail answers "all of them", the question's line; for
// a role (a requester who asks for themselves, a colleague they include),
// the line that decided it; else its first occurrence in the deciding words, a
// bounce report's recipients all in one place.
func (t *Ticket) placeOf(v string, d Decision, w *weighing) (key, line int) {
	// "Both, please" to our question: the question names them together.
	if line := t.inQuestion(v, *w); line > 0 {
		return t.blocks.of(line) * zones, line
	}
	if d.Decided() && d.By.Line > 0 {
		line := d.By.Line
		if at, ok := t.bothOf[line]; ok {
			// "… my old address, old@…" and then "stop sending to both".
			line = at
		}
		return t.blocks.of(line) * zones, line
	}
	occ := t.records[v].occ
	o := occ[0]
	for _, x := range occ {
		if w.targets[x.msg] && x.zone == zBody {
			o = x
			break
		}
	}
	if m := t.mails[o.msg]; m.bounce {
		return -1 - o.msg, o.line
	}
	// A header block's lines are places of their own: the sender of a
	// forwarded mail is not where it went.
	return t.blocks.of(o.line)*zones + int(o.zone), o.line
}

// zones is more than the number of zones, for the places' keys.
const zones = 32

// byName finds the line where the asking mail, which names no address of
// its own, speaks of the targets' owners by their names, when it names
// only some of them or names them in more than one sentence ("Lucía
// stays with us and needs the offers. Only Pablo and Marta are to go"):
// what it says of each, a person must read. A name is a capitalized word
// that is a piece of one target's local part (lucia of lucia.mendez@…);
// the writer's own address is "me", never named. 0 for none.
func (t *Ticket) byName(w *weighing, places []*place) (line int, names []string) {
	if w.asker < 0 || t.mails[w.asker].named+t.mails[w.asker].ids > 0 {
		return 0, nil
	}
	owner, sent := targetOwners(places, t.mails[w.asker].from)
	if sent < 2 {
		return 0, nil
	}
	line, names, named, sentences := t.ownersNamed(w.asker, owner)
	if named == 0 || named == sent && sentences < 2 {
		return 0, nil
	}
	return line, names
}

// targetOwners maps each piece of the targets' local parts, folded, to
// its one target ("" for a piece of several), leaving out the writer's
// own address me; sent counts the targets, me left out.
func targetOwners(places []*place, me string) (owner map[string]string, sent int) {
	owner = map[string]string{}
	for _, p := range places {
		for _, v := range p.values {
			if v == me {
				continue // "me", never named
			}
			sent++
			notePieces(owner, v)
		}
	}
	return owner, sent
}

// notePieces notes in owner the pieces of address v's local part, runs
// of three letters or more (lucia and mendez of lucia.mendez@…): v's
// alone, or "" once another target has one too.
func notePieces(owner map[string]string, v string) {
	at := strings.LastIndexByte(v, '@')
	if at < 0 {
		return
	}
	local := v[:at]
	for _, piece := range strings.FieldsFunc(local, func(c rune) bool { return !unicode.IsLetter(c) }) {
		if len([]rune(piece)) < 3 {
			continue
		}
		k := folded(piece)
		if was, ok := owner[k]; ok && was != v {
			owner[k] = ""
			continue
		}
		owner[k] = v
	}
}

// ownersNamed reads the lines of words (no subject) of mail asker for
// the capitalized words that are a piece of one target's local part
// ("Lucía" of lucia.mendez@…): the first line that has one, the words as
// written (one for each target), how many targets they name and in how
// many sentences.
func (t *Ticket) ownersNamed(asker int, owner map[string]string) (line int, names []string, named, sentences int) {
	targets := map[string]bool{}
	sentenceSet := map[[2]int]bool{}
	var ws []word
	for _, s := range t.said {
		if s.msg != asker || s.subject {
			continue
		}
		ws = wordsOf(ws, t.lines[s.line])
		n := 0
		for _, wd := range ws {
			c, _ := utf8.DecodeRuneInString(wd.s)
			if v := owner[folded(wd.s)]; v != "" && unicode.IsUpper(c) {
				if !targets[v] {
					names = append(names, wd.s)
				}
				targets[v] = true
				sentenceSet[[2]int{s.line, n}] = true
				if line == 0 {
					line = s.line
				}
			}
			if wd.ends {
				n++
			}
		}
	}
	return line, names, len(targets), len(sentenceSet)
}

// keptTarget is a target named in a sentence that says to change nothing.
type keptTarget struct {
	value string
	line  int
}

// keptTargets are the targets the deciding mails name in a sentence that
// says to change nothing ("invoices as before to buchhaltung@…, nothing
// should change there"), beside the request: a person must say whether
// it is meant.
func (t *Ticket) keptTargets(w *weighing, places []*place) []keptTarget {
	sent := sentIn(places)
	var out []keptTarget
	seen := map[string]bool{}
	for _, s := range t.said {
		if s.subject || !(w.targets[s.msg] || s.msg == w.asker) {
			continue
		}
		for _, v := range s.kept {
			if sent[v] && !seen[v] {
				seen[v] = true
				out = append(out, keptTarget{v, s.line})
			}
		}
	}
	return out
}

// bracketedNot are the targets followed, in the deciding mails, by words
// in brackets that say not.
func (t *Ticket) bracketedNot(w *weighing, places []*place) []keptTarget {
	sent := sentIn(places)
	var out []keptTarget
	for _, b := range t.bracketNot {
		if sent[b.value] && (w.targets[b.msg] || b.msg == w.asker) {
			out = append(out, keptTarget{b.value, b.line})
			delete(sent, b.value)
		}
	}
	return out
}

// sentIn is the set of the targets that stand in places.
func sentIn(places []*place) map[string]bool {
	sent := map[string]bool{}
	for _, p := range places {
		for _, v := range p.values {
			sent[v] = true
		}
	}
	return sent
}

// keptInNotes are the targets an internal note of our agents names, in
// full or by its local part, on a line whose words keep something ("Habe
// mit Frau Dr. Brandt telefoniert: buchhaltung@ ist die Rechnungsadresse
// … Die bleibt drin."): the note may narrow what the customer asked, and
// the rule does not read notes as the customer's words.
func (t *Ticket) keptInNotes(places []*place) []person {
	partial := t.resolvePartials()
	var out []person
	for _, p := range places {
		for _, v := range p.values {
			var occ []occurrence
			if rec := t.records[v]; rec != nil {
				occ = rec.occ
			}
			for _, o := range slices.Concat(occ, partial[v]) {
				if o.msg < len(t.mails) && t.mails[o.msg].note && lineKeeps(t.lines[o.line]) {
					out = append(out, person{v, o.msg, o.line})
					break
				}
			}
		}
	}
	return out
}

// lineKeeps reports a line whose words keep something: an exception, a
// keep, a change said not to be made.
func lineKeeps(text string) bool {
	_, keeps := polarity(wordsOf(nil, text))
	return keeps
}
