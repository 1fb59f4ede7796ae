package batch

// The words the rule of whom a ticket is about (whom.go) reads a ticket
// by, in English. Each list is a plain list of phrases, matched as whole
// words without regard to case ("’" reads as "'"); "{a|b}" stands for
// either word, so that "stop {emailing|mailing} me" is two phrases. To
// teach the rule a new phrasing, add it to the list it belongs to and add a
// ticket that uses it to testdata/tickets (see README, "Whom a ticket is
// about").

// suppressMe are the ways a requester asks to get no more mail: in a
// batch add they are a target, in a removal they are not.
var suppressMe = []string{
	"unsubscribe me", "unsubscribe myself", "opt me out", "take me off", "remove me from {your|the|this} {mailing|mail|email|e-mail|distribution|marketing|newsletter}",
	"stop {emailing|mailing|e-mailing|sending|contacting|spamming|messaging|bothering} me",
	"{don't|dont|do not|never} {email|mail|e-mail|contact|message} me",
	"{don't|dont|do not|never} send me",
	"no longer {want|wish|need} to {receive|get|hear}",
	"{don't|dont|do not} want {to receive|to get|your|these|any more|anymore}",
	"{i|i'd|we|we'd} {want|would like|like|wish|need} to unsubscribe",
	"i {unsubscribed|have unsubscribed|already unsubscribed|tried to unsubscribe} {but|and} still",
	"i tried to unsubscribe",
	"still {getting|receiving} {your|these|the|them|emails|mails}",
	"keep {getting|receiving} {your|these|the|emails|mails}",
	"block me", "suppress me", "leave me alone",
	"{erase|delete|remove} my {data|personal data|details|information|account}",
	"forget me", "right to be forgotten", "right to erasure",
	"object to {processing|marketing|direct marketing}",
}

// releaseMe are the ways a requester asks to get mail again: in a removal
// they are a target, in a batch add they are not.
var releaseMe = []string{
	"put me back", "add me back", "let me back",
	"{resubscribe|re-subscribe|re-add|readd|unblock|unsuppress|whitelist} me",
	"subscribe me again", "opt me back in", "opt back in",
	"unsubscribed {by mistake|by accident|accidentally|in error|mistakenly}",
	"{accidentally|mistakenly} unsubscribed",
	"{receive|get} {your|the} {emails|mails|mail|newsletter|newsletters|messages} again",
	"{not|no longer|stopped} {getting|receiving} {your|any|the} {emails|mails|mail|newsletter|newsletters|messages}",
	"why {am i|do i} not {get|getting|receive|receiving}",
	"why {don't|dont|can't|cant} i {get|receive}",
	"{can't|cannot|cant|can not} {receive|get} {your|any}",
	"start {sending|emailing|mailing} me",
	"remove me from {your|the} {block|blocked|suppression|bounce|blacklist|blocklist|do-not-contact|dnc}",
	"{unblock|unsuppress} my",
}

// askAboutMe are the ways a requester names themselves without saying
// which way: a target in either mode.
var askAboutMe = []string{
	"remove me", "delete me", "remove myself",
	"am i {blocked|suppressed|blacklisted|listed|on|still}",
	"is my {address|email|e-mail|mail|mailbox} {blocked|suppressed|blacklisted|listed|on|still}",
	"my {address|email|e-mail|mail address|email address|e-mail address|mailbox|inbox}",
	"{check|look up|verify} my",
	"my {address|email|e-mail|mail address|email address|e-mail address} is {blocked|suppressed|blacklisted|listed|on|still}",
}

// notAboutMe are phrasings that look like asking about oneself but only
// say who is writing ("my email is jane@…, please remove bob@…"); a
// longer phrase of the other lists wins over them.
var notAboutMe = []string{
	"my {address|email|e-mail|mail address|email address|e-mail address} {is|was}",
}

// aboutUs are the ways a requester asks for themselves and the colleagues
// on the ticket together; they read as both.
var aboutUs = []string{
	"unsubscribe us", "remove us", "{put|add|let} us back", "opt us out", "take us off",
	"{stop|quit} {emailing|mailing|contacting|sending} us",
	"{don't|dont|do not} {email|mail|contact} us",
	"both of us", "us both", "the two of us", "all of us",
	"we both", "we all", "our {addresses|emails|email addresses|e-mail addresses}",
}

// colleagueWords name someone else on the ticket; with a request on the
// same line ("me and my colleague (cc'd)", "please also remove my
// colleague") the ticket's copied addresses are included.
var colleagueWords = []string{
	"{my|our} {colleague|colleagues|coworker|coworkers|co-worker|co-workers|teammate|teammates|team mate|manager|boss|assistant|team}",
	"cc'd", "cced", "cc'ed", "in cc", "on cc", "copied in", "copied here", "copied on this", "in copy",
}

// requestWords make a line a request: a colleague named on it is
// included, and a requester who names their own address on it asks for
// themselves.
var requestWords = []string{
	"unsubscribe", "remove", "stop", "block", "suppress", "opt out", "opt-out", "take off", "delete", "erase",
	"put back", "add back", "resubscribe", "re-subscribe", "unblock", "unsuppress", "whitelist",
}

// contactWords come before an address the ticket gives for the answer
// ("please confirm in writing to privacy@…"): it is where the reply goes,
// not a target, and suppressing it would block the reply.
var contactWords = []string{
	"reply to", "respond to", "{write|writing|write back|answer} to", "in writing to",
	"{confirm|confirmation|confirmations} {to|at}", "confirm by {email|e-mail|mail} to",
	"{reach|contact|email|e-mail|mail} {me|us} at", "get back to {me|us} at",
	"send {it|the confirmation|confirmation|your reply|your answer|the answer|a reply|replies} to",
}

// closingWords end a mail: a line that is one of them (or one of them and
// a name, "Thanks, Jane <jane@…>") opens the signature.
var closingWords = []string{
	"thanks", "thank you", "thanks again", "thanks in advance", "many thanks", "with thanks", "thx", "tia",
	"best", "best regards", "best wishes", "kind regards", "warm regards", "warmest regards", "regards", "rgds", "br", "kr",
	"cheers", "sincerely", "yours sincerely", "yours truly", "yours", "respectfully", "all the best", "take care", "cordially",
}

// signatureOpeners open a signature wherever they stand ("Sent from my
// iPhone" and the address under it).
var signatureOpeners = []string{
	"sent from my", "get outlook for", "sent via", "sent with", "sent from mail for",
}

// forwardMarkers begin a forwarded or copied mail inside the ticket; its
// header lines follow.
var forwardMarkers = []string{
	"forwarded message", "begin forwarded message", "original message", "forwarded by",
}

// Header lines, by what they say about the addresses on them.
var (
	// senderHeaders name who wrote the mail.
	senderHeaders = []string{"from", "sender"}
	// sentToHeaders name whom it was sent to: in the ticket's own header,
	// our support mailbox.
	sentToHeaders = []string{"to"}
	// copyHeaders name who was copied: the colleagues a requester may
	// include.
	copyHeaders = []string{"cc", "bcc"}
	// otherPeopleHeaders name addresses that are never the subject of a
	// request.
	otherPeopleHeaders = []string{"reply-to", "return-path", "delivered-to", "envelope-to", "x-original-to", "x-forwarded-to", "x-forwarded-for", "resent-from", "resent-to"}
	// plainHeaders name no person but belong to a header block (an
	// address-like Message-ID in one is not an address to suppress).
	plainHeaders = []string{"subject", "date", "sent", "message-id", "in-reply-to", "references", "received", "mime-version",
		"content-type", "importance", "priority", "x-mailer", "thread-topic", "thread-index", "list-unsubscribe", "list-id", "auto-submitted"}
)

// titleWords make a short capitalized line a title or company line of a
// signature ("Data Protection Officer", "Acme B.V."): an address right
// under it is a role mailbox that signs, not a target.
var titleWords = []string{
	"officer", "dpo", "manager", "director", "head", "lead", "team", "department", "dept", "support", "desk",
	"ceo", "cto", "cfo", "coo", "cmo", "founder", "co-founder", "owner", "engineer", "specialist", "coordinator", "administrator",
	"counsel", "privacy", "compliance", "legal", "operations", "ops", "marketing", "sales", "success", "service", "services",
	"assistant", "consultant", "analyst", "partner", "president",
}

// legalSuffixes end a company's name; they count as capitalized words.
var legalSuffixes = []string{
	"b.v.", "bv", "n.v.", "nv", "gmbh", "ag", "inc", "inc.", "ltd", "ltd.", "llc", "plc", "corp", "corp.", "co.", "s.a.", "sa",
	"s.l.", "sas", "sarl", "srl", "s.r.l.", "pty", "ab", "oy", "as", "a/s", "aps", "kg", "ug", "spa", "s.p.a.", "bvba",
}

// nameParticles are the lower-case words inside names and titles
// ("Anna van der Berg", "Head of Email").
var nameParticles = []string{
	"van", "der", "den", "de", "del", "della", "di", "da", "von", "zu", "la", "le", "du", "bin", "ibn", "al", "el", "y", "e",
	"of", "and", "&", "for", "the", "at",
}

// bareWords make up a line that is a request with no object, the reply
// "Unsubscribe" or "Please stop!": when the requester's own mail names no
// other address, they ask for themselves. Each word says which way it
// asks; fillers may stand beside them.
var (
	bareSuppress = []string{"unsubscribe", "stop", "opt-out", "optout", "unsub"}
	bareRelease  = []string{"resubscribe", "re-subscribe", "unblock", "unsuppress"}
	bareAsk      = []string{"remove", "delete"}
	bareFillers  = []string{"please", "pls", "plz", "kindly", "now", "asap", "immediately", "thanks", "thank", "you", "me", "opt", "out", "this", "it", "re"}
)

// negations before a phrase turn it around ("please do not unsubscribe
// me"): it is not read as a request.
var negations = []string{"not", "don't", "dont", "never", "no"}
