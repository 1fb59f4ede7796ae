package bounce

import (
	"net/textproto"
	"strings"
)

// vacationSubjects say in a subject, in several languages, that a message
// is an automatic reply or an out-of-office notice.
var vacationSubjects = []string{
	// English
	"out of office", "out-of-office", "automatic reply", "auto reply", "auto-reply", "autoreply",
	"auto response", "auto-response", "autoresponse", "automatic response", "away from the office",
	// German
	"abwesenheitsnotiz", "automatische antwort", "abwesenheit", "nicht im büro", "außer haus",
	// French
	"réponse automatique", "reponse automatique", "absence du bureau", "message d'absence", "absent du bureau",
	// Spanish, Italian, Portuguese
	"respuesta automática", "respuesta automatica", "fuera de la oficina", "fuera de oficina",
	"risposta automatica", "fuori ufficio", "resposta automática", "resposta automatica", "fora do escritório",
	// Dutch, Scandinavian, Finnish, Polish, Czech, Turkish
	"automatisch antwoord", "afwezigheidsbericht", "niet op kantoor", "autosvar", "fraværende", "frånvarande",
	"automaattinen vastaus", "automatyczna odpowiedź", "poza biurem", "automatická odpověď", "mimo kancelář",
	"otomatik yanıt", "otomatik cevap", "ofis dışında",
	// Russian, Japanese, Chinese, Korean
	"автоответ", "автоматический ответ", "нет в офисе", "自動応答", "自動返信", "不在通知",
	"自动回复", "自動回覆", "自动答复", "자동 응답", "부재중",
}

// vacationWords say it in a message's subject or text, but also in a
// person's mail: they count only with a header that says the message is
// automatic or bulk.
var vacationWords = []string{
	"vacation", "on holiday", "on leave", "out of the office", "away from my desk", "limited access to email",
	"urlaub", "abwesend", "congé", "vacances", "absent", "vacaciones", "ausente", "ferie", "assente",
	"vakantie", "afwezig", "férias", "ausência", "semester", "loma", "urlop", "dovolená", "tatil", "отпуск",
	"休暇", "不在", "休假",
}

// challengeSubjects and challengeWords mark a challenge-response request:
// the recipient's filter asks the sender to prove a person sent the mail.
var (
	challengeSubjects = []string{
		"please confirm your message", "please confirm your e-mail", "please confirm your email",
		"please verify your message", "verify your email address to", "message awaiting verification",
		"your message is awaiting", "sender verification", "confirm that you are human",
		"challenge-response", "spam arrest", "boxbe",
	}
	challengeWords = []string{
		"challenge-response", "i use a spam filter", "prove that you are a human", "verify that you are a human",
		"confirm that you are a human", "confirm that you're a human", "to complete the delivery of your message",
		"your message will be delivered once you", "verify that you are not a robot", "approved senders list",
		"add you to my list of approved senders",
	}
	challengeHeaders = []string{"X-Boxbe-Ticket", "X-Spamarrest-Noauth", "X-Spam-Arrest", "X-Challenge"}
)

// autoHeaders say by their presence that a message is an automatic reply.
var autoHeaders = []string{"X-Autoreply", "X-Autorespond", "X-Autoresponder", "X-Auto-Reply", "X-Vacation"}

// readAutoReply reads a message that says it is automatic: a challenge,
// a vacation reply, or other auto-submitted mail (RFC 3834). Its
// recipient is the address it came from.
func readAutoReply(e *envelope) (Report, bool) {
	shape := autoShape(e)
	if shape == "" {
		return Report{}, false
	}
	addr, _ := e.from()
	r := Report{
		Recipient:         addr,
		Kind:              KindAutoReply,
		Diagnostic:        e.plainText(),
		OriginalMessageID: e.originalMessageID(),
		Shape:             shape,
	}
	if r.OriginalMessageID == "" {
		r.OriginalMessageID = msgID(e.hdr.Get("In-Reply-To"))
	}
	return r, true
}

// autoShape names the kind of automatic message e is, or "".
func autoShape(e *envelope) string {
	subject := e.subject()
	auto := autoSubmitted(e)
	switch {
	case isChallenge(e, subject):
		return "challenge"
	case anyHeader(e, autoHeaders) || precedence(e) == "auto_reply" || containsAny(subject, vacationSubjects):
		return "vacation"
	case (auto || bulk(e)) && (containsAny(subject, vacationWords) || e.hasWords(vacationWords)):
		return "vacation"
	case auto:
		return "auto-submitted"
	}
	return ""
}

// isChallenge reports whether e is a challenge-response request.
func isChallenge(e *envelope, subject string) bool {
	return anyHeader(e, challengeHeaders) || containsAny(subject, challengeSubjects) || e.has(challengeWords...) ||
		strings.HasPrefix(strings.ToLower(e.hdr.Get("X-Delivery-Agent")), "tmda")
}

// autoSubmitted reports whether the Auto-Submitted field says the message
// is automatic (any value but "no").
func autoSubmitted(e *envelope) bool {
	v := firstWord(e.hdr.Get("Auto-Submitted"))
	return v != "" && v != "no"
}

// precedence is the Precedence field's value, lower-case.
func precedence(e *envelope) string { return firstWord(e.hdr.Get("Precedence")) }

// bulk reports whether the Precedence field marks mail sent without a
// person (bulk, junk, list).
func bulk(e *envelope) bool {
	switch precedence(e) {
	case "bulk", "junk", "list":
		return true
	}
	return false
}

// anyHeader reports whether the message has one of the fields, even empty
// (Exchange marks an NDR with an empty X-MS-Exchange-Message-Is-Ndr).
func anyHeader(e *envelope, names []string) bool {
	for _, n := range names {
		if _, ok := e.hdr[textproto.CanonicalMIMEHeaderKey(n)]; ok {
			return true
		}
	}
	return false
}

// hasWords reports whether the first lines of the text contain one of the
// words, in any case; a vacation notice says so at its start.
func (e *envelope) hasWords(words []string) bool {
	for _, l := range e.lines[:min(len(e.lines), 20)] {
		if containsAny(strings.ToLower(l), words) {
			return true
		}
	}
	return false
}
