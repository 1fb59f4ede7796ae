package ticket

import (
	"html"
	"strings"
)

// A ticket pasted as HTML (a mail's source, a helpdesk's rich text) is
// read as its text: tags stripped, entities decoded, "<br>" and the end
// of a block as a line end, a blockquote as a quote, a mailto: link as its
// text and its address. Each line of text keeps the number of the line of
// HTML it ends on. Text that is not HTML passes as it is (an entity in it,
// "jane&#64;example.com", is decoded).

// htmlText turns the lines of an HTML text into lines of text.
type htmlText struct {
	on bool // the text is HTML
	// blocks: a block tag or <br> was read, so the source's own line
	// ends are spaces, as a browser shows them ("…flere mails på\n<a
	// href="mailto:…">" is one sentence).
	blocks  bool
	pending string // a tag or comment cut by a line end
	skip    string // inside <style>, <script>, <head>: the tag that ends it
	depth   int    // blockquote depth
	cur     strings.Builder
	mailto  string // the address of the <a href="mailto:…"> open
	anchor  int    // where its text starts in cur
	out     []string
}

// lines appends the lines of text raw (a line of the input) makes.
func (h *htmlText) lines(out []string, raw string) []string {
	if !h.on {
		if !strings.ContainsAny(raw, "<&") {
			return append(out, raw)
		}
		if !looksHTML(raw) {
			if strings.IndexByte(raw, '&') >= 0 && strings.IndexByte(raw, ';') >= 0 {
				raw = html.UnescapeString(raw)
			}
			return append(out, raw)
		}
		h.on = true
	}
	h.out = out
	h.read(h.pending + raw)
	if h.blocks && h.skip == "" {
		if h.cur.Len() > 0 && h.pending == "" {
			h.cur.WriteByte(' ')
		}
		return h.out
	}
	h.flush()
	return h.out
}

// end returns what is left at the end of the text.
func (h *htmlText) end() []string {
	if !h.on || h.pending == "" && h.cur.Len() == 0 {
		return nil
	}
	h.out = nil
	rest := h.pending
	h.pending = ""
	h.text(rest)
	h.flush()
	return h.out
}

// read reads a line of HTML: text, tags, comments.
func (h *htmlText) read(s string) {
	h.pending = ""
	for s != "" {
		if h.skip != "" {
			end := indexFold(s, h.skip)
			if end < 0 {
				return
			}
			s = s[end+len(h.skip):]
			h.skip = ""
			continue
		}
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			h.text(s)
			return
		}
		h.text(s[:lt])
		s = s[lt:]
		n, ok := h.tag(s)
		if !ok {
			h.cur.WriteByte('<')
			s = s[1:]
			continue
		}
		if n < 0 {
			h.pending = s // the tag goes on on the next line
			return
		}
		s = s[n:]
	}
}

// text appends text with its entities decoded.
func (h *htmlText) text(s string) {
	if s == "" {
		return
	}
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	h.cur.WriteString(strings.ReplaceAll(s, "\u00a0", " "))
}

// tag reads the tag at the start of s: how long it is (-1 when it goes
// on past the line), or not ok when s does not start with a tag we know.
func (h *htmlText) tag(s string) (int, bool) {
	if strings.HasPrefix(s, "<!--") {
		end := strings.Index(s, "-->")
		if end < 0 {
			h.skip = "-->"
			return len(s), true
		}
		return end + 3, true
	}
	name, closing := tagName(s)
	if !knownTag(name) {
		return 0, false
	}
	end := strings.IndexByte(s, '>')
	if end < 0 {
		return -1, true
	}
	h.act(name, closing, s[:end+1])
	return end + 1, true
}

// act does what a tag does to the text.
func (h *htmlText) act(name string, closing bool, tag string) {
	switch {
	case name == "br":
		h.blocks = true
		h.flushBlank()
	case (name == "style" || name == "script" || name == "head" || name == "title") && !closing:
		h.skip = "</" + name + ">"
	case name == "blockquote":
		h.flush()
		if closing {
			h.depth = max(h.depth-1, 0)
		} else {
			h.depth++
		}
	case name == "a":
		h.link(closing, tag)
	case name == "td" || name == "th":
		if !closing && h.cur.Len() > 0 {
			h.cur.WriteByte('\t')
		}
	case blockTag(name):
		h.blocks = true
		h.flush()
	}
}

// link keeps a mailto: link's address, and writes it after the link's
// text when the text does not name it.
func (h *htmlText) link(closing bool, tag string) {
	if !closing {
		h.mailto, h.anchor = "", h.cur.Len()
		lt := strings.ToLower(tag)
		if i := strings.Index(lt, "mailto:"); i >= 0 {
			addr := tag[i+len("mailto:"):]
			if end := strings.IndexAny(addr, "\"' >?"); end >= 0 {
				addr = addr[:end]
			}
			h.mailto = html.UnescapeString(addr)
		}
		return
	}
	if h.mailto != "" && !strings.Contains(strings.ToLower(h.cur.String()[min(h.anchor, h.cur.Len()):]), strings.ToLower(h.mailto)) {
		h.cur.WriteString(" <" + h.mailto + ">")
	}
	h.mailto = ""
}

// flush ends the current line of text, if it has any: the end of a block
// makes no empty line (a table's rows, nested divs), a <br> does.
func (h *htmlText) flush() {
	if strings.TrimSpace(h.cur.String()) == "" {
		h.cur.Reset()
		return
	}
	h.flushBlank()
}

// flushBlank ends the current line, empty or not.
func (h *htmlText) flushBlank() {
	text := strings.TrimRight(h.cur.String(), " \t")
	h.cur.Reset()
	h.anchor = 0
	if h.depth > 0 {
		text = strings.Repeat("> ", h.depth) + text
	}
	h.out = append(h.out, text)
}

// tagName is the lower-case name of the tag s starts with, and whether it
// closes.
func tagName(s string) (string, bool) {
	s = s[1:]
	closing := strings.HasPrefix(s, "/")
	if closing {
		s = s[1:]
	}
	end := 0
	for end < len(s) && (s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= '0' && s[end] <= '9' || s[end] == ':') {
		end++
	}
	if end == 0 || end < len(s) && !strings.ContainsRune(" \t/>", rune(s[end])) {
		return "", false
	}
	return strings.ToLower(s[:end]), closing
}

// knownTags are the tags of mail HTML; any other "<…>" is text ("Jane
// <jane@example.com>").
var knownTags = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields("a abbr b big blockquote body br center cite code col colgroup dd div dl dt em font footer form " +
		"h1 h2 h3 h4 h5 h6 head header hr html i img input label li link main meta nav o:p ol p pre s section small span " +
		"strike strong style script sub sup table tbody td tfoot th thead title tr tt u ul wbr xml base article aside figure") {
		m[t] = true
	}
	return m
}()

func knownTag(name string) bool { return knownTags[name] }

// blockTag reports a tag whose start and end end a line.
func blockTag(name string) bool {
	switch name {
	case "p", "div", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "hr", "dl", "dt", "dd",
		"center", "pre", "section", "header", "footer", "article", "body", "html", "form", "figure", "aside":
		return true
	}
	return false
}

// looksHTML reports a line that holds a tag of mail HTML.
func looksHTML(s string) bool {
	for i := strings.IndexByte(s, '<'); i >= 0 && i < len(s); {
		if name, _ := tagName(s[i:]); knownTag(name) && (name != "b" && name != "i" && name != "u" && name != "s" || strings.Contains(s[i:], ">")) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}
