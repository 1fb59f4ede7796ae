package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Keys that reach the program together are keys, each one, however fast
// they come: a slow SSH link or a busy terminal hands Bubble Tea several
// runes in one message ("gtGdd"), and an Esc glued to the key after it
// reads as Alt+key. They are taken one by one, in order, as if typed
// slowly: while no text field has focus every rune is a command of its
// own; once one of them opens a text field (i, /, e) the rest is its
// text; a key whose command has something to do first (a question, the
// review) has it done before the next key. A question raised within the
// burst takes the rest of it as its default: keys that came together are
// never a yes. A paste is never keys: bracketed, or taken off the input
// as a paste (Input), it arrives as one paste message.

// pressed handles a key message, split into the keys it holds.
func (m *Model) pressed(k tea.KeyMsg) tea.Cmd {
	if m.prompt != nil || k.Paste || k.Type != tea.KeyRunes || (len(k.Runes) < 2 && !k.Alt) {
		// A question takes the whole message: a multi-rune message or
		// an Alt+key never matches its yes.
		return m.key(k)
	}
	return m.burst(single(k))
}

// single splits a key message into the keys it holds: each rune a key of
// its own, an Alt+key an Esc and the key.
func single(k tea.KeyMsg) []tea.KeyMsg {
	if k.Paste || k.Type != tea.KeyRunes || (len(k.Runes) < 2 && !k.Alt) {
		return []tea.KeyMsg{k}
	}
	keys := make([]tea.KeyMsg, 0, len(k.Runes)+1)
	if k.Alt {
		// Esc and the next key in one read: a terminal's Alt+g is the
		// same bytes as Esc, g; shush binds no Alt+letter (a text
		// field's Alt+b/f/d give way; Alt+←/→ and ctrl+w still work).
		keys = append(keys, tea.KeyMsg{Type: tea.KeyEsc})
	}
	for _, r := range k.Runes {
		keys = append(keys, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return keys
}

// hold keeps a key pressed while a paste is read (Interrupt and a paste
// excepted), split into single keys: it acts once the paste is on the
// list (release).
func (m *Model) hold(k tea.KeyMsg) bool {
	if m.build.reading == 0 || k.Paste || key.Matches(k, m.keys.Interrupt) {
		return false
	}
	m.held = append(m.held, single(k)...)
	return true
}

// burst handles keys that came together, in order. A key whose command
// is not nil waits for it: the rest follows its message (chainMsg). Keys
// that come while a paste is read wait for it (held).
func (m *Model) burst(keys []tea.KeyMsg) tea.Cmd {
	for i := 0; i < len(keys); {
		if m.prompt != nil {
			p := m.prompt
			m.prompt = nil
			return p.def
		}
		if m.build.reading > 0 {
			m.held = append(m.held, keys[i:]...)
			return nil
		}
		k, n := m.next(keys[i:])
		i += n
		cmd := m.key(k)
		if cmd != nil && i < len(keys) {
			rest := keys[i:]
			return func() tea.Msg { return chainMsg{first: cmd(), rest: rest} }
		}
		if cmd != nil {
			return cmd
		}
	}
	return nil
}

// next is the first key of keys to handle, and how many it takes: while
// a text field has focus the runes that follow are its text, one
// message; any other key is one key.
func (m *Model) next(keys []tea.KeyMsg) (tea.KeyMsg, int) {
	if keys[0].Type != tea.KeyRunes || m.front().keyMode() != typing {
		return keys[0], 1
	}
	text := keys[0].Runes
	n := 1
	for ; n < len(keys) && keys[n].Type == tea.KeyRunes && !keys[n].Alt; n++ {
		text = append(text, keys[n].Runes...)
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: text}, n
}

// key handles one key: the prompt's answer, the root's keys by input mode,
// then the screen in front's.
func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if m.prompt != nil {
		p := m.prompt
		m.prompt = nil
		return p.answer(k)
	}
	if cmd, done := m.globalKey(k); done {
		return cmd
	}
	return m.front().update(k)
}

// chainMsg is the message of a key's command, and the keys that came
// after it in the same burst, to be handled once it is.
type chainMsg struct {
	first tea.Msg
	rest  []tea.KeyMsg
}

// chained handles a key's message, then the rest of its burst.
func (m Model) chained(c chainMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch first := c.first.(type) {
	case nil:
	case tea.QuitMsg:
		return m, tea.Quit
	case tea.BatchMsg:
		// Several commands: they run as they would, the rest with them.
		cmd = tea.Batch(first...)
	default:
		next, c1 := m.Update(first)
		m, cmd = next.(Model), c1
	}
	rest := m.burst(c.rest)
	draft := m.keepDraft()
	return m, tea.Batch(cmd, rest, draft)
}
