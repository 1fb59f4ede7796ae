package ticket

import (
	"regexp"
	"strconv"
	"strings"
)

// A helpdesk export may list its comments newest first (most helpdesks)
// or oldest first (a chat transcript: Intercom, a messenger). The rule
// reads mails newest first, so a transcript whose comment headers' dates
// and times rise from one comment to the next is read from its end.

// stamp is when a comment was written, as far as its header says: its
// day (month*32+day, 0 unknown) and its minute of the day (-1 unknown).
type stamp struct {
	day, min int
}

// noStamp is a header that says no time.
var noStamp = stamp{0, -1}

// clock is a time of day, perhaps with AM or PM after it.
var clock = regexp.MustCompile(`(?i)\b(\d{1,2})[:.](\d{2})(?:\s*([ap])\.?\s?m\b\.?|\b)`)

// isoDay is a date written 2026-11-25.
var isoDay = regexp.MustCompile(`\b\d{4}-(\d{2})-(\d{2})\b`)

// monthNumber is the number of a month's (folded) name or abbreviation.
var monthNumber = func() map[string]int {
	m := map[string]int{}
	for i, row := range []string{
		"jan january jän januar ene enero janv janvier janeiro gen gennaio januari",
		"feb february februar febrero févr février fev fevereiro febbraio februari",
		"mar march märz marzo mars março mrt maart",
		"apr april abr abril avril aprile",
		"may mai mayo maio mag maggio mei",
		"jun june juni junio juin junho giu giugno",
		"jul july juli julio juil juillet julho lug luglio",
		"aug august ago agosto août augustus",
		"sep sept september septiembre septembre setembro set settembre",
		"oct october okt oktober octubre octobre out outubro ott ottobre",
		"nov november noviembre novembre novembro",
		"dec december dez dezember dic diciembre déc décembre dezembro dicembre",
	} {
		for _, s := range strings.Fields(row) {
			m[folded(s)] = i + 1
		}
	}
	return m
}()

// stampOf reads the date and time a comment header says.
func stampOf(t string) stamp {
	s := noStamp
	if m := clock.FindStringSubmatch(t); m != nil {
		h, _ := strconv.Atoi(m[1])
		mi, _ := strconv.Atoi(m[2])
		switch strings.ToLower(m[3]) {
		case "p":
			h = h%12 + 12
		case "a":
			h %= 12
		}
		if h < 24 && mi < 60 {
			s.min = h*60 + mi
		}
	}
	if m := isoDay.FindStringSubmatch(t); m != nil {
		mo, _ := strconv.Atoi(m[1])
		d, _ := strconv.Atoi(m[2])
		s.day = mo*32 + d
		return s
	}
	s.day = monthDay(t)
	if s.day == 0 {
		s.day = relativeDay(t)
	}
	return s
}

// relativeDays are the words for yesterday (1) and today (2), which
// compare only with each other.
var relativeDays = map[string]int{"yesterday": 1, "gestern": 1, "hier": 1, "ayer": 1, "ieri": 1, "gisteren": 1, "ontem": 1,
	"today": 2, "heute": 2, "aujourd'hui": 2, "hoy": 2, "oggi": 2, "vandaag": 2, "hoje": 2}

// relativeDay is the day "Yesterday at 16:02" or "Today, 09:10" says, 0
// for none.
func relativeDay(t string) int {
	var ws []word
	ws = wordsOf(ws, t)
	for _, w := range ws {
		if d := relativeDays[folded(w.s)]; d > 0 {
			return d
		}
	}
	return 0
}

// monthDay is month*32+day of a month's name with a day number beside
// it ("Nov 25", "25 nov.", "25. November"), 0 for none.
func monthDay(t string) int {
	var ws []word
	ws = wordsOf(ws, t)
	for i, w := range ws {
		mo := monthNumber[folded(strings.TrimRight(w.s, "."))]
		if mo == 0 {
			continue
		}
		for _, j := range []int{i + 1, i - 1} {
			if j < 0 || j >= len(ws) {
				continue
			}
			if d, err := strconv.Atoi(strings.TrimRight(ws[j].s, ".")); err == nil && d >= 1 && d <= 31 {
				return mo*32 + d
			}
		}
	}
	return 0
}

// before compares two stamps: -1 when a is earlier, 1 when later, 0 when
// the stamps cannot tell.
func (a stamp) before(b stamp) int {
	switch {
	case a.day > 0 && b.day > 0 && (a.day < 32) != (b.day < 32):
		return 0 // "Yesterday" beside "Nov 24": not comparable
	case a.day > 0 && b.day > 0 && a.day != b.day:
		return sign(b.day - a.day)
	case a.min >= 0 && b.min >= 0 && (a.day == b.day || a.day == 0 || b.day == 0):
		return sign(b.min - a.min)
	}
	return 0
}

func sign(n int) int {
	switch {
	case n > 0:
		return -1
	case n < 0:
		return 1
	}
	return 0
}

// orderMails sets the order the rule reads the mails in, newest first:
// the order they stand in, but for a transcript whose comments' stamps
// only rise, whose comments are read from the last.
func (t *Ticket) orderMails() {
	t.newest = make([]int, len(t.mails))
	t.rank = make([]int, len(t.mails))
	for m := range t.mails {
		t.newest[m] = m
	}
	first, rises, falls := -1, 0, 0
	last := noStamp
	seen := false
	for m, ml := range t.mails {
		if !ml.helpdesk {
			continue
		}
		if first < 0 {
			first = m
		}
		if ml.stamp == noStamp {
			continue
		}
		if seen {
			switch last.before(ml.stamp) {
			case -1:
				rises++
			case 1:
				falls++
			}
		}
		last, seen = ml.stamp, true
	}
	t.ordered = rises+falls > 0
	if rises > 0 && falls == 0 {
		for i, j := first, len(t.mails)-1; i < j; i, j = i+1, j-1 {
			t.newest[i], t.newest[j] = t.newest[j], t.newest[i]
		}
		t.chrono = true
	}
	for i, m := range t.newest {
		t.rank[m] = i
	}
}

// newestFirst is the mails in the order they are read, newest first.
func (t *Ticket) newestFirst() []int {
	if len(t.newest) != len(t.mails) {
		t.orderMails()
	}
	return t.newest
}

// olderFrom is the mails from m on in reading order: m and those older.
func (t *Ticket) olderFrom(m int) []int {
	order := t.newestFirst()
	if m < 0 || m >= len(order) {
		return nil
	}
	return order[t.rank[m]:]
}

// after is the mail read after m (the next older), len(mails) for none.
func (t *Ticket) after(m int) int {
	order := t.newestFirst()
	if m < 0 || t.rank[m]+1 >= len(order) {
		return len(order)
	}
	return order[t.rank[m]+1]
}

// older reports whether mail a is read after (is older than) mail b.
func (t *Ticket) older(a, b int) bool {
	t.newestFirst()
	return a >= 0 && b >= 0 && a < len(t.rank) && b < len(t.rank) && t.rank[a] > t.rank[b]
}

// turnsDisagree reports a transcript whose order its comments do not tell
// where a comment not ours asks the other way from the deciding one: which
// came last, and so decides, is not known.
func (t *Ticket) turnsDisagree(w *weighing, sts []mailStatement, own Own) bool {
	if t.ordered || w.asker < 0 || !t.mails[w.asker].helpdesk {
		return false
	}
	other := opposite(w.p.Mode)
	if other == 0 {
		return false
	}
	for m, ml := range t.mails {
		if m != w.asker && ml.helpdesk && !t.ours(m, own) && sts[m].asks&other != 0 && sts[m].weak&other == 0 {
			return true
		}
	}
	return false
}
