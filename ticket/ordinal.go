package ticket

import (
	"slices"
	"strings"
	"sync"

	"github.com/shushlist/shush/api"
)

// A ticket that lists suppression IDs may pick among them by their place:
// "¿Me pueden liberar los dos primeros? El tercero déjenlo así", "Just
// the first two please", "the last one (8d52f6e0-…) … please leave that
// one suppressed". Where every sentence of the deciding words that names
// places either plainly asks the change for them or plainly keeps them,
// the list is followed: the IDs the words do not pick are kept, with the
// line that says so. Anything else (a sentence that both asks and
// keeps, places that clash, a list of one) leaves the choice to a person,
// as before.

// ordinalLine is a line whose words name a place in a list.
type ordinalLine struct{ n, msg int }

// maxOrdinalLines bounds the lines kept: a ticket picks by place a few
// times, not thousands.
const maxOrdinalLines = 64

// ordinals notes line l when a word of it names a place in a list
// ("first", "tercero", "letzten"), and keeps its text to read at the end.
func (r *Reader) ordinals(l *line) {
	if len(r.tk.ordinals) >= maxOrdinalLines || len(l.ws) > 80 {
		return
	}
	for _, w := range l.ws {
		if placeOf(w) != placeNone {
			r.tk.ordinals = append(r.tk.ordinals, ordinalLine{n: l.n, msg: l.msg})
			r.tk.keep(l.n, l.t)
			return
		}
	}
}

// listPlace is what an ordinal word says.
type listPlace uint8

const (
	placeNone listPlace = iota
	placeFirst
	placeSecond
	placeThird
	placeLast
	countTwo
	countThree
)

// placeSections are the books' word lists of the places.
var placeSections = [...]struct {
	section string
	place   listPlace
}{
	{"ordinal-first", placeFirst}, {"ordinal-second", placeSecond}, {"ordinal-third", placeThird},
	{"ordinal-last", placeLast}, {"count-two", countTwo}, {"count-three", countThree},
}

// listPlaceWords is every place word of the books, folded, with its place:
// one lookup a word.
var listPlaceWords = sync.OnceValue(func() map[string]listPlace {
	m := map[string]listPlace{}
	b := phraseBooks()
	for i := len(placeSections) - 1; i >= 0; i-- {
		for w := range b.words[placeSections[i].section] {
			m[w] = placeSections[i].place
		}
	}
	return m
})

// placeOf is the place word w names, placeNone for none; with an
// article elided onto it, the word after it ("l'ultimo").
func placeOf(w word) listPlace {
	var buf [64]byte
	if p, ok := listPlaceWords()[string(fold(buf[:0], w.s))]; ok {
		return p
	}
	if rest := elided(w.s); rest != "" {
		return listPlaceWords()[string(fold(buf[:0], rest))]
	}
	return placeNone
}

// positions is the places (1-based) in a list of n that the ordinal
// phrase in ws names: "the first two" 1 and 2, "el tercero" 3, "the last
// one" n; nil when it names a place past the list's end.
func positions(ws []word, n int) []int {
	from, at, count := placesNamed(ws)
	switch {
	case at > 0 && at <= n && from == 0 && count == 0:
		return []int{at}
	case from == 0 || count > n:
		return nil
	}
	count = max(count, 1)
	out := make([]int, 0, count)
	for i := range count {
		if from > 0 {
			out = append(out, i+1)
		} else {
			out = append(out, n-count+1+i)
		}
	}
	return out
}

// placesNamed reads the place words of ws: from the start (1) or the end
// (-1), a single place (second, third), how many.
func placesNamed(ws []word) (from, at, count int) {
	for _, w := range ws {
		switch placeOf(w) {
		case placeFirst:
			from = 1
		case placeLast:
			from = -1
		case placeSecond:
			at = 2
		case placeThird:
			at = 3
		case countTwo:
			count = 2
		case countThree:
			count = 3
		}
	}
	return from, at, count
}

// countedFewer reports a sentence of the asking mail of w that asks a
// change of a bare count, fewer than the n IDs listed ("Please release
// the two bounce ones" over three): which, a person says.
func (t *Ticket) countedFewer(w weighing, n int) bool {
	for _, o := range t.ordinals {
		if o.msg != w.asker || !t.asksAt(o.n) {
			continue
		}
		all := wordsOf(nil, t.lines[o.n])
		for from := 0; from < len(all); {
			to := sentenceEnd(all, from)
			if first, at, count := placesNamed(all[from:to]); first == 0 && at == 0 && count > 0 && count < n && countAfterArticle(all[from:to]) {
				return true
			}
			from = to
		}
	}
	return false
}

// countAfterArticle reports a count word right after an article or a
// demonstrative ("the two", "die beiden", "les deux", "de to"): a count
// of things, not "to" or "due" of another language's prose.
func countAfterArticle(ws []word) bool {
	for i := 1; i < len(ws); i++ {
		if p := placeOf(ws[i]); (p == countTwo || p == countThree) && countArticles[folded(ws[i-1].s)] {
			return true
		}
	}
	return false
}

// countArticles are the articles and demonstratives of the books'
// languages that stand before a count ("the two", "i due", "ne kaksi").
var countArticles = wordSet("the these those die diese jene les ces los las estos estas esos esas " +
	"i gli le questi queste quei quelle os as estes esses essas de deze dei dem dessa disse " +
	"te ty tyto ti ci cei acele aceste ne nämä οι τα τις αυτές αυτά a az ezek azok bu şu")

// asksAt reports line n asking a change.
func (t *Ticket) asksAt(n int) bool {
	return slices.ContainsFunc(t.said, func(s said) bool { return s.line == n && s.asks&changing != 0 })
}

// listedIDs is the suppression IDs the target mails of w name, each once,
// in the order first named.
func (t *Ticket) listedIDs(w weighing) []string {
	var out []string
	for _, id := range t.ids {
		v, err := api.NormalizeID(id.value)
		if err == nil && w.targets[id.msg] && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// followOrdinals reads the places the deciding words pick among the IDs
// listed, and returns the IDs they leave, each by the line that says so;
// ok when the list is followed.
func (t *Ticket) followOrdinals(w weighing, own Own) (kept map[string]int, ok bool) {
	list := t.listedIDs(w)
	if len(list) < 2 || len(t.ordinals) == 0 {
		return nil, false
	}
	pick, keep, line, ok := t.placesSaid(w, own, list)
	if !ok || slices.ContainsFunc(pick, func(i int) bool { return slices.Contains(keep, i) }) {
		return nil, false
	}
	kept = map[string]int{}
	for i, v := range list {
		if len(pick) > 0 && !slices.Contains(pick, i+1) || slices.Contains(keep, i+1) {
			kept[v] = line
		}
	}
	if len(kept) == len(list) || len(kept) == 0 && len(pick) < len(list) {
		return nil, false
	}
	// "Nur die ersten beiden freigeben" of two listed, the third kept
	// apart: followed, and nothing of the list left out.
	return kept, true
}

// placesSaid gathers the places the target mails of w and the mails not
// ours (ours too in a ticket all ours) newer than its asker pick and keep
// in a list of n, and the first
// line that names any; ok when some line does and none is unclear.
func (t *Ticket) placesSaid(w weighing, own Own, list []string) (pick, keep []int, line int, ok bool) {
	newer := t.newerThan(w.asker)
	internal := t.internal(own)
	for _, o := range t.ordinals {
		if !w.targets[o.msg] && !newer[o.msg] || t.ours(o.msg, own) && !internal {
			continue
		}
		p, k, clear := readPlaces(t.lines[o.n], list)
		if !clear {
			return nil, nil, 0, false
		}
		if len(p)+len(k) > 0 && line == 0 {
			line = o.n
		}
		pick, keep = append(pick, p...), append(keep, k...)
	}
	return pick, keep, line, line > 0
}

// newerThan is the mails newer than mail m.
func (t *Ticket) newerThan(m int) map[int]bool {
	out := map[int]bool{}
	if m < 0 {
		return out
	}
	for _, k := range t.newestFirst() {
		if k == m {
			break
		}
		out[k] = true
	}
	return out
}

// narrowsIn reports a sentence of mail m's words that narrows the
// request to what it names ("solo info@ y ventas@", "just a1@… please"):
// what the mail says is read.
func (t *Ticket) narrowsIn(m int) bool {
	for _, v := range t.order {
		if slices.ContainsFunc(t.records[v].occ, func(o occurrence) bool { return o.msg == m && o.only != nNone && o.zone == zBody }) {
			return true
		}
	}
	return slices.ContainsFunc(t.partials, func(p partial) bool { return p.msg == m && p.only != nNone })
}

// placesIn reports a line of mail m that names a place in a list: with
// the list followed, what the mail says of it is read.
func (t *Ticket) placesIn(m int) bool {
	return slices.ContainsFunc(t.ordinals, func(o ordinalLine) bool { return o.msg == m })
}

// placedAround reports a line naming a place in a list in a mail newer
// than the asker of w that names IDs of its own: "Scratch the second
// one. … 2c71e5b8-… is a spam complaint" over the list of two.
func (t *Ticket) placedAround(w weighing) bool {
	newer := t.newerThan(w.asker)
	return slices.ContainsFunc(t.ordinals, func(o ordinalLine) bool { return newer[o.msg] && t.mails[o.msg].ids > 0 })
}

// readPlaces reads the sentences of a line that name places in the list:
// those asked for (pick), those kept (keep); clear is false when a
// sentence naming places both asks and keeps.
func readPlaces(text string, list []string) (pick, keep []int, clear bool) {
	n := len(list)
	all := wordsOf(nil, text)
	var ms []match
	for from := 0; from < len(all); {
		// Each sentence's phrases apart: "Release the first two only.
		// The third one stays" is not "only the third one".
		to := sentenceEnd(all, from)
		ws := all[from:to]
		ms = phraseBooks().trees[inWords].find(ms, ws, phraseBooks().trees[negations])
		for _, m := range ms {
			if m.class != cOrdinal && m.class != cOrdinalOne && m.class != cSelective {
				continue
			}
			at := positions(ws[m.first:withCount(ws, m.end, len(ws))], n)
			switch k := idAfter(ws, m.end, list); {
			case k > 0:
				at = []int{k} // "Die zweite Sperre 3e7a…" means 3e7a…, wherever it stands
			case k < 0:
				continue // an ID the list does not hold (kept apart): no place in it
			}
			if at == nil {
				continue
			}
			switch placesWay(text, ws, ms, m) {
			case wayUnclear:
				return nil, nil, false
			case wayKeep:
				keep = append(keep, at...)
			case wayPick:
				pick = append(pick, at...)
			}
		}
		from = to
	}
	return pick, keep, true
}

// idAfter is the place (1-based) in the list of the ID written right
// after an ordinal phrase ending at end, a noun or a bracket between
// ("the last one (8d52f6e0-…)", "die dritte Sperre c4d0…"); -1 for an
// ID the list does not hold, 0 for none.
func idAfter(ws []word, end int, list []string) int {
	for k := end; k < min(end+2, len(ws)); k++ {
		v, err := api.NormalizeID(strings.Trim(ws[k].s, "<>()[]\"'.,;:"))
		if err == nil {
			if i := slices.Index(list, v); i >= 0 {
				return i + 1
			}
			return -1
		}
		if ws[k].ends || ws[k].clause && (k+1 == len(ws) || !ws[k+1].opens) {
			return 0 // "…, c4d0…" ends the phrase's clause; "Sperre (c4d0…)" does not
		}
	}
	return 0
}

// placesWay is what the clause of the ordinal phrase m does with its
// places when the clause alone says ("Nur die ersten beiden freigeben,
// den dritten nicht anfassen"), else what its sentence ws (of text)
// does. A clause ends at a comma or a semicolon, not at a bracket ("Nur
// die dritte (f03b…) bitte nicht anfassen").
func placesWay(text string, ws []word, ms []match, m match) int {
	cut := func(k int) bool {
		w := ws[k]
		return w.clause && strings.ContainsAny(text[w.off+len(w.s):min(len(text), w.off+len(w.s)+1)], ",;")
	}
	from, to := m.first, m.end
	for from > 0 && !cut(from-1) {
		from--
	}
	for to < len(ws) && !cut(to-1) {
		to++
	}
	if from > 0 || to < len(ws) {
		if way := sentenceWay(ws, ms, m, from, to); way == wayPick || way == wayKeep {
			return way
		}
	}
	return sentenceWay(ws, ms, m, 0, len(ws))
}

// withCount is the end of an ordinal phrase ending at end, the count
// word after it taken in ("just the first" "two").
func withCount(ws []word, end, to int) int {
	if end < to && (placeOf(ws[end]) == countTwo || placeOf(ws[end]) == countThree) {
		return end + 1
	}
	return end
}

// What a sentence does with the places it names.
const (
	wayNone = iota
	wayPick
	wayKeep
	wayUnclear
)

// sentenceWay is what the sentence ws[from:to] does with the places its
// phrase m names: keeps them ("El tercero déjenlo así", "el tercero
// (…) NO"), asks the change for them or narrows to them ("Just the first
// two"), both (unclear), or neither.
func sentenceWay(ws []word, ms []match, m match, from, to int) int {
	if excludedPlaces(ms, m) {
		// "Sbloccateli tutti tranne l'ultimo": the places left out of a
		// request for all the others.
		return wayKeep
	}
	asks, keeps := askedOrKept(ws[from:to])
	keeps = keeps || endsDenied(ws[from:to])
	only := onlyWord(ws[m.first]) || slices.ContainsFunc(ms, func(o match) bool { return o.class == cOnly && !o.negated && o.first >= from && o.first < to })
	switch {
	case asks && keeps:
		return wayUnclear
	case keeps:
		return wayKeep
	case asks || only:
		return wayPick
	}
	return wayNone
}

// excludedPlaces reports an ordinal phrase m right after a phrase that
// leaves out what follows ("all but the last", "todos menos el primero").
func excludedPlaces(ms []match, m match) bool {
	return slices.ContainsFunc(ms, func(e match) bool {
		return (e.class == cExclude || e.class == cExcept) && !e.negated && e.end == m.first
	})
}

// askedOrKept is polarity for a sentence naming places, where a lone verb
// told in passing asks nothing: a change asks when it is a phrase of
// words, opens the sentence, or has a request word before it ("Please
// release the first two", "Release the other two"), not "The third one
// is a genuine spam complaint … leave that one".
func askedOrKept(ws []word) (asks, keeps bool) { return sentencePolarity(ws, true) }

// onlyWord reports a word that is a phrase of the books' [only] alone
// ("just", "solo"), as an ordinal phrase may begin.
func onlyWord(w word) bool {
	c, n := phraseBooks().trees[inWords].at([]word{w}, 0)
	return c == cOnly && n == 1
}

// endsDenied reports a sentence whose last word is a negation alone:
// "el tercero (a5bdac65-…) NO".
func endsDenied(ws []word) bool {
	if len(ws) < 2 {
		return false
	}
	c, n := phraseBooks().trees[negations].at(ws, len(ws)-1)
	return c == cNegation && n == 1
}
