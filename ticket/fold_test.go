package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// A Turkish request reads the same typed with its letters, without them,
// partly without them (a keyboard that lacks some) and in upper case,
// where "I" is dotless "ı" and "İ" is dotted "i".
func TestTurkishLettersFold(t *testing.T) {
	for _, line := range []string{
		"Lütfen beni listenizden çıkarın.",
		"Lutfen beni listenizden cikarin.",
		"Lütfen beni listenizden cıkarın.",
		"Lütfen beni listenizden çikarin.",
		"LÜTFEN BENİ LİSTENİZDEN ÇIKARIN.",
		"Lütfen beni bülteninizden çıkartır mısınız?",
		"Lutfen beni bulteninizden cikartir misiniz?",
		"LÜTFEN BENİ BÜLTENİNİZDEN ÇIKARTIR MISINIZ?",
	} {
		text := "From: Ali Demir <ali@kutu.example>\nTo: destek@ourcompany.test\nSubject: bülten\n\n" + line + "\n\nAli\n"
		p := ticket.Read(text).Reading(ticket.NewOwn([]string{"@ourcompany.test"}))
		if p.Mode != ticket.ModeAdd || strings.Join(p.Targets, " ") != "ali@kutu.example" {
			t.Errorf("%q: reads %s %v; want add [ali@kutu.example]", line, p.Mode, p.Targets)
		}
	}
}
