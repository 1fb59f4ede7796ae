package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// What the header says of the service and the key, kept true: the service
// is asked again every probeEvery while it answers and every
// probeFailingEvery while it does not, and any request of any screen that
// succeeds clears a failure at once (answerer).
const (
	probeEvery        = 30 * time.Second
	probeFailingEvery = 5 * time.Second
)

// keyState is what the service said of the key.
type keyState int

const (
	keyUnknown  keyState = iota
	keyWrites            // it takes changes from the key
	keyReadOnly          // it refuses changes (403 restricted_api_key)
	keyRefused           // it refuses the key itself (401, 403): revoked, unknown
)

// health is the header's knowledge of the service.
type health struct {
	probed  bool // a probe was answered: lookups is known
	lookups bool // the service offers look-ups and the list
	answers bool // the service answered its last probe, or a request since
	// down is why the service did not answer its last probe ("" when it
	// answered, or a request succeeded since).
	down string
	key  keyState
	// keyCode is the service's refusal of the key, its status and name
	// ("403 invalid_api_key"), for the header; the notice gives it whole.
	keyCode string
	// seq names the probe whose answer schedules the next one.
	seq int
}

// probe asks the service whether it answers (and what it offers); while
// the key's standing is not known, whether it refuses changes from it.
func (m *Model) probe(seq int) tea.Cmd {
	svc, ask := m.opts.Service, m.health.key == keyUnknown || m.health.key == keyRefused
	return func() tea.Msg {
		// One try each, a few seconds at most: the header says how the
		// service is now, and asks again soon anyway.
		ctx, cancel := context.WithTimeout(client.Once(context.Background()), 5*time.Second)
		defer cancel()
		ok, err := svc.Supports(ctx)
		msg := supportsMsg{seq: seq, ok: ok, err: err}
		if err == nil && ask {
			msg.readOnly, msg.err = svc.ReadOnly(ctx)
			msg.asked = msg.err == nil
		}
		return msg
	}
}

// reprobe asks the service again now (after a run something failed in);
// the probe already scheduled is dropped.
func (m *Model) reprobe() tea.Cmd {
	m.health.seq++
	return m.probe(m.health.seq)
}

// heard takes a probe's answer into the header and schedules the next.
func (m *Model) heard(msg supportsMsg) tea.Cmd {
	h := &m.health
	h.down, h.answers = "", msg.err == nil || keyRefusal(msg.err)
	m.clearOutage()
	switch {
	case keyRefusal(msg.err):
		var ae *api.Error
		errors.As(msg.err, &ae)
		h.key, h.keyCode = keyRefused, fmt.Sprintf("%d %s", ae.StatusCode, ae.Name)
		m.notice = "The service refuses the key: " + errorText(msg.err) + "."
	case msg.err != nil:
		h.down = errorText(msg.err)
		m.notice = outageNotice + h.down + "."
	default:
		h.lookups, h.probed = msg.ok, true
		// A service without the list hides Browse from the help.
		m.keys.Browse.SetEnabled(msg.ok)
		if msg.asked {
			h.key = keyWrites
			if msg.readOnly {
				h.key = keyReadOnly
			}
		}
	}
	if msg.seq != h.seq {
		return nil // a probe of its own asked meanwhile: it schedules
	}
	every := probeEvery
	if h.down != "" {
		every = probeFailingEvery
	}
	return m.c.after(every, probeMsg{h.seq})
}

// news takes what a screen's request met into the header: a failure
// clears the moment one succeeds (and the service is asked again, for
// what it offers); a request that got no answer has it asked now.
func (m *Model) news(msg tea.Msg) tea.Cmd {
	n, ok := msg.(serviceNews)
	if !ok {
		return nil
	}
	answered, failed := n.news()
	h := &m.health
	switch {
	case answered && !h.answers:
		h.down, h.answers = "", true
		m.clearOutage()
		return m.reprobe()
	case failed && h.down == "":
		return m.reprobe()
	}
	return nil
}

// outageNotice is the notice line while the service does not answer.
const outageNotice = "The service does not answer: "

// clearOutage takes back the notice of an outage (not another notice).
func (m *Model) clearOutage() {
	if strings.HasPrefix(m.notice, outageNotice) {
		m.notice = ""
	}
}

// refusal says why the service would refuse to change the list with this
// key, before anything is typed ("" when nothing says it would).
func (m *Model) refusal() string {
	switch m.health.key {
	case keyReadOnly:
		if m.c.Target.Agent != "" {
			return "This agent is read-only: it cannot send; the service will refuse to change the list."
		}
		return "This key is read-only: the service will refuse to change the list."
	case keyRefused:
		return "The service refuses this key (" + m.health.keyCode + "): nothing can be sent with it."
	}
	return ""
}

// state is the header's word on the service and the key; it comes early
// in the header, which a narrow terminal cuts at its end.
func (h *health) state() string {
	switch {
	case h.down != "":
		return "✗ not answering: " + h.down
	case h.key == keyRefused:
		return "✗ refuses the key: " + h.keyCode
	case h.answers && h.key == keyReadOnly:
		return "answers · key read-only"
	case h.answers:
		return "answers"
	}
	return "…"
}

// keyRefusal reports a 401 or 403 answer: the service refuses the key.
func keyRefusal(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden)
}

// unanswered reports an error that says the service did not answer: no
// answer at all, or a 5xx.
func unanswered(err error) bool {
	var ne *client.NetworkError
	var ae *api.Error
	return errors.As(err, &ne) || errors.As(err, &ae) && ae.StatusCode >= 500
}

// The messages that carry the news of a screen's requests.

func (p pageMsg) news() (bool, bool) { return p.err == nil, unanswered(p.err) }

func (p previewMsg) news() (bool, bool) { return lookupNews(p.lookups) }

func (c checkedMsg) news() (bool, bool) { return lookupNews(c.found) }

func (p progressMsg) news() (bool, bool) { return p.state.answered, false }

func (u undoPlannedMsg) news() (bool, bool) { return u.err == nil, unanswered(u.err) }

func lookupNews(found []batch.Found) (answered, failed bool) {
	for _, f := range found {
		answered = answered || f.Err == nil
		failed = failed || unanswered(f.Err)
	}
	return answered, failed
}
