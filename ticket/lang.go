package ticket

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
)

// The phrase books: lang/<code>.txt, one file a language, each a list of
// sections ("[suppress-me]") of phrases, one a line. A phrase is matched
// as whole words, folded (case, accents, "’"); "{a|b}" spells either
// word, "…" stands for up to four words of any kind. Every book is read
// into the same trees, so a ticket may mix its languages. The sections a
// book may have, and what they teach the rule, are in sections below;
// lang/README.md says how to add a language.

//go:embed lang/*.txt
var langFiles embed.FS

// class is what a phrase says.
type class uint8

// The classes of phrases. Those about the writer themselves say which way
// they ask (self); the others what the line asks of anyone it names.
const (
	cNone class = iota
	// About the writer (the whom rule).
	cSuppressMe // asks to get no more mail: a target in an add
	cReleaseMe  // asks to get mail again: a target in a removal
	cCheckMe    // asks whether they are blocked
	cMissingMe  // says they get no mail: asks why, and wants it
	cMissing    // says mail does not arrive (to anyone): asks why, and wants it
	cRemoveMe   // "remove me": which way the ticket's other words say
	cMe         // names themselves, no way ("my address")
	cSuppressUs // themselves and the colleagues copied, no more mail
	cReleaseUs  // themselves and the colleagues copied, mail again
	cUs         // themselves and the colleagues copied, no way
	cNotMe      // says who is writing ("my email is …")
	cColleague  // names a colleague on the ticket
	cContact    // where the answer is to go
	// What a line asks of the addresses it names (the intent).
	cRequest     // a request word, no way ("please do")
	cSuppress    // no more mail: unsubscribe, block, stop
	cRelease     // mail again: put back, unblock, whitelist
	cCheck       // only asks: is it blocked, why no mail
	cKeepAll     // changes nothing of what its sentence names: a check alone, beside a stop those addresses are in doubt
	cRemove      // remove, delete: no more mail, unless IDs or a suppression list
	cWithdraw    // takes an earlier request back: never mind, change nothing
	cExcept      // leaves out the address right after it: not, except, keep
	cExclude     // leaves out what follows, an address or not: except, apart from
	cNotSuppress // "don't unsubscribe …": leaves out what follows; with "only" the line asks it of the rest
	cExceptAfter // leaves out the address right before it: … should stay
	cWaveOff     // leaves out the address before it in its sentence: … ignore it
	cBelow       // points at what is quoted or forwarded under it
	cNotSelf     // a receiving phrase that is not about the writer ("these bounces")
	cBehalf      // the writer acts for someone else ("on behalf of", "my client"): not about the writer
	cOnly        // narrows the request to what the line names
	cAlso        // adds to the request ("also", "too"): no narrowing
	cSelective   // picks targets by a condition ("the rows marked …"): a person must choose
	cHesitate    // does not know which address is meant ("not sure which"): a person must ask
	cForwarding  // a cover note: the writer passes on a request below
	cBounce      // a bounce report's words
	cFailed      // a failure next to a bounced recipient
	// What a line starts with.
	cClosing   // ends a mail: a signature follows
	cOpener    // opens a signature wherever it stands ("Sent from my iPhone")
	cForward   // begins a forwarded mail
	cFooter    // a helpdesk's notification text
	cNegation  // turns the phrase after it around
	cErasure   // asks to be forgotten: right to erasure, delete my data
	cNarrative // tells what the writer did ("I clicked unsubscribe"): history, not the request
	cSuccessor // the address before it takes over from the writer ("… takes over the account"): a contact, not a target
	cFromHere  // names the address the writer writes from ("the one I'm writing from"): with a keep in its sentence, the writer's is left out
	cNotice    // a legal notice under a mail ("intended solely for the addressee"): asks nothing, its addresses are the signature's
	// cHandsTo makes the address after it in its clause the one who takes
	// over ("ab sofort übernimmt mein Kollege Luis (luis@…)"): a contact.
	cHandsTo
	// cKeepSome says some mail is still wanted ("but I still need the
	// invoices", "les factures oui"): a block stops all of it.
	cKeepSome
	// cGone says an address no longer exists or is read ("doesn't exist
	// anymore", "gibt es nicht mehr"): "remove it" beside it stops mail.
	cGone
	// cBack says an address works again ("it works again", "funktioniert
	// wieder"): "remove it" beside it takes it off the suppression list.
	cBack
	// cTurn turns, at the start of a clause, from what was to what is
	// asked now ("but now", "aber jetzt", "ma ora"): a stop told before it
	// on its line is history when mail again is asked after it.
	cTurn
	// cMistake says something happened by mistake ("accidentally", "por
	// error"): a stop beside it in its clause is history.
	cMistake
	// cLater says the writer will decide or answer later ("I'll let you
	// know", "vi faccio sapere"): what the mail asks may not stand.
	cLater
	// cOrdinal picks targets by their place in a list ("the first two"):
	// as cSelective, unless its line ends with ':' over the ones it means.
	cOrdinal
	// cOrdinalOne names one place in a list ("the third one"): read only
	// where the list is followed (ordinal.go).
	cOrdinalOne
	// cForInfo says someone is copied to be kept informed ("for
	// visibility", "zur Info"): a colleague its sentence names is not
	// asked about.
	cForInfo
	// cNotAfter is a "not" right after an address that ends its clause
	// ("maar c@… niet.", "c@… aber nicht", "pero a c@… no"): read as
	// except-after there, and nothing elsewhere ("c@… niet meer mailen"
	// asks to stop it).
	cNotAfter
	// cUnnamed speaks of an address other than the one the writer writes
	// from, which the ticket may not give ("my old work address", "mijn
	// oude werkadres", "adresa mea veche").
	cUnnamed
	// cInSignature points at the writer's signature for the address a
	// request means ("it's the one in my signature", "die in meiner
	// Signatur"): its one address is named.
	cInSignature
	// cStopNotice is a notice of ours that mail has stopped ("You have
	// been unsubscribed", "Du er nu afmeldt"): a stop asked in reply to
	// it is already done; undo it or keep it, a person says.
	cStopNotice
	// cSentTo names the address a mail of ours went to, in our footer
	// pasted into the ticket ("This email was sent to x@…"): the address
	// the ticket is about, never a signature's.
	cSentTo
	// cElsewhere says the writer writes from another address of theirs
	// than the one the request is about ("I'm writing from my work
	// email", "escrevo a partir do e-mail do escritório"): beside an
	// address of their own that the words name, the sender's is left out.
	cElsewhere
	// cNoSay says the writer has no say for the person a change is for:
	// they do not know of it or have not agreed to it ("he doesn't know
	// I'm asking", "je ne lui en ai pas encore parlé"), or are the
	// writer's ex-partner ("my ex-girlfriend"): a person must ask them.
	cNoSay
	// cAttached points at an attachment for the addresses a request
	// means ("the leavers on the attached spreadsheet", "im Anhang"): a
	// pasted ticket does not hold it.
	cAttached
	// cDispute says the writer disputes what a mail of ours says ("het
	// klopt gewoon niet", "please sort it out"): a stop beside it may be
	// about that mail, not the list.
	cDispute
	// cSendsFrom names the address a sender's mail goes out from ("our
	// client (sends from news@…)"): a sender, not a recipient.
	cSendsFrom
	classCount // how many
)

// sections maps a book's section to the class of its phrases, and to the
// tree they go into.
var sections = map[string]struct {
	class class
	tree  tree
}{
	"suppress-me": {cSuppressMe, inWords}, "release-me": {cReleaseMe, inWords}, "check-me": {cCheckMe, inWords}, "missing-me": {cMissingMe, inWords}, "missing": {cMissing, inWords},
	"remove-me": {cRemoveMe, inWords}, "me": {cMe, inWords}, "suppress-us": {cSuppressUs, inWords},
	"release-us": {cReleaseUs, inWords}, "us": {cUs, inWords}, "not-me": {cNotMe, inWords},
	"colleague": {cColleague, inWords}, "contact": {cContact, inWords}, "request": {cRequest, inWords},
	"suppress": {cSuppress, inWords}, "release": {cRelease, inWords}, "check": {cCheck, inWords}, "keep-all": {cKeepAll, inWords},
	"remove": {cRemove, inWords}, "withdraw": {cWithdraw, inWords}, "except": {cExcept, inWords}, "exclude": {cExclude, inWords}, "not-suppress": {cNotSuppress, inWords},
	"except-after": {cExceptAfter, inWords}, "wave-off": {cWaveOff, inWords}, "below": {cBelow, inWords}, "not-self": {cNotSelf, inWords}, "behalf": {cBehalf, inWords},
	"only": {cOnly, inWords}, "also": {cAlso, inWords}, "selective": {cSelective, inWords}, "hesitate": {cHesitate, inWords}, "forwarding": {cForwarding, inWords}, "bounce": {cBounce, inWords}, "failed": {cFailed, inWords},
	"closing": {cClosing, atStart}, "signature": {cOpener, atStart}, "forward": {cForward, atStart},
	"footer": {cFooter, inFooter}, "negation": {cNegation, negations}, "erasure": {cErasure, erasures},
	"narrative": {cNarrative, inWords}, "successor": {cSuccessor, inWords}, "successor-before": {cHandsTo, inWords}, "keep-some": {cKeepSome, inWords}, "gone": {cGone, inWords}, "back": {cBack, inWords}, "from-here": {cFromHere, inWords},
	"notice": {cNotice, inFooter}, "turn": {cTurn, inWords}, "mistake": {cMistake, mistakes}, "later": {cLater, inWords}, "ordinal": {cOrdinal, inWords}, "ordinal-one": {cOrdinalOne, inWords}, "for-info": {cForInfo, inWords}, "not-after": {cNotAfter, inWords},
	"unnamed-address": {cUnnamed, unnamedAddresses}, "in-signature": {cInSignature, inWords},
	"stop-notice": {cStopNotice, stopNotices}, "sent-to": {cSentTo, inWords},
	"from-elsewhere": {cElsewhere, inWords}, "no-say": {cNoSay, inWords}, "attached": {cAttached, inWords}, "dispute": {cDispute, inWords}, "sends-from": {cSendsFrom, inWords},
}

// wordSections are the sections that are lists of single words (or short
// names), looked up whole.
var wordSections = []string{
	"header-from", "header-requester", "header-contact", "header-to", "header-cc", "header-subject", "header-other", "header-plain",
	"wrote", "title", "legal", "particle", "bare-suppress", "bare-release", "bare-ask", "bare-filler", "only-me",
	"system", "at", "dot", "dash", "greeting", "row-keep", "mailbox", "internal-note", "other-id", "id-word",
	"ordinal-first", "ordinal-second", "ordinal-third", "ordinal-last", "count-two", "count-three",
	"answer-all", "answer-yes", "both", "own", "not-name",
}

// tree is one of the phrase trees.
type tree uint8

const (
	inWords          tree = iota // anywhere in a line
	atStart                      // at a line's start
	inFooter                     // anywhere in a line: a footer's text
	negations                    // before a phrase
	erasures                     // anywhere in a line that asks: asks to be forgotten
	mistakes                     // anywhere in a line: says something happened by mistake
	unnamedAddresses             // anywhere in a line: speaks of an address the writer does not write from
	stopNotices                  // anywhere in a quoted or forwarded line: a notice of ours that mail has stopped
	treeCount
)

// books is every phrase book read into the trees and the word lists.
type books struct {
	trees [treeCount]*phraseBook
	words map[string]map[string]bool
	// languages are the books read, by code.
	languages []string
	// spellings are the books' words as they are looked up, while the
	// books are read.
	spellings spellings
}

// phraseBooks is the books, read the first time a ticket is read (some
// 3 MB and 10 ms): a command that reads none does not pay for them.
var phraseBooks = sync.OnceValue(func() *books { return mustReadBooks(langFiles) })

func mustReadBooks(fsys fs.FS) *books {
	b, err := readBooks(fsys)
	if err != nil {
		panic("ticket: " + err.Error())
	}
	return b
}

// readBooks reads every lang/*.txt of fsys.
func readBooks(fsys fs.FS) (*books, error) {
	b := &books{words: map[string]map[string]bool{}, spellings: spellings{}}
	for i := range b.trees {
		b.trees[i] = &phraseBook{}
	}
	for _, s := range wordSections {
		b.words[s] = map[string]bool{}
	}
	files, err := fs.Glob(fsys, "lang/*.txt")
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		if err := b.read(fsys, f); err != nil {
			return nil, err
		}
		b.languages = append(b.languages, strings.TrimSuffix(path.Base(f), ".txt"))
	}
	b.spellings = nil
	return b, nil
}

func (b *books) read(fsys fs.FS, name string) error {
	fh, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	section, n := "", 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || strings.HasPrefix(l, "#"):
			continue
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			section = l[1 : len(l)-1]
			if _, ok := sections[section]; !ok && b.words[section] == nil {
				return fmt.Errorf("%s:%d: no section %q", name, n, section)
			}
			continue
		case section == "":
			return fmt.Errorf("%s:%d: a phrase before the first [section]", name, n)
		}
		if s, ok := sections[section]; ok {
			b.trees[s.tree].add(s.class, l, b.spellings)
			continue
		}
		for _, ws := range expand(l) {
			b.words[section][folded(strings.Join(ws, " "))] = true
		}
	}
	return sc.Err()
}

// has reports whether the word (or words) w is in the word list of
// section.
func (b *books) has(section, w string) bool {
	var buf [64]byte
	return b.words[section][string(fold(buf[:0], w))]
}

// hasWords reports whether the words ws, joined by a space, are in the
// word list of section.
func (b *books) hasWords(section string, ws ...word) bool {
	var buf [128]byte
	var word [64]byte
	key := buf[:0]
	for i, w := range ws {
		if i > 0 {
			key = append(key, ' ')
		}
		key = append(key, fold(word[:0], w.s)...)
	}
	return b.words[section][string(key)]
}
