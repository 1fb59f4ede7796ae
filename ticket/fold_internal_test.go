package ticket

import "testing"

// Romanian "ș" and "ț" fold to "s" and "t" however they are typed (a comma
// below, a cedilla, or mixed on one word by a keyboard that has one form
// and not the other), as Czech and Slovak "ť", "ď" and "ľ" do, and
// Greek letters lose their tonos and dialytika, final sigma its form.
func TestAccentedLettersFold(t *testing.T) {
	for _, c := range [][2]string{
		{"ștergeți", "stergeti"}, {"ştergeţi", "stergeti"}, {"ştergeți", "stergeti"}, {"ȘTERGEȚI", "stergeti"},
		{"zaťaženie", "zatazenie"}, {"ďakujem", "dakujem"}, {"ľutujem", "lutujem"},
		{"διεύθυνσή", "διευθυνση"}, {"ΔΙΕΎΘΥΝΣΗ", "διευθυνση"}, {"λάθος", "λαθοσ"}, {"ΛΑΘΟΣ", "λαθοσ"}, {"προϊόντα", "προιοντα"},
	} {
		if got := folded(c[0]); got != c[1] {
			t.Errorf("%s folds to %q; want %q", c[0], got, c[1])
		}
	}
}

// A short word between "except" and its address is counted in letters,
// not bytes: Greek "την" is as short as "the".
func TestShortWordCountsLetters(t *testing.T) {
	for w, want := range map[string]bool{"the": true, "την": true, "στη": true, "τους": true, "αυτήν": false, "a@b.example": false} {
		if got := shortWord(w); got != want {
			t.Errorf("shortWord(%q) = %v; want %v", w, got, want)
		}
	}
}
