package api

// ObjectAuditEntry is the "object" of an entry of the trail.
const ObjectAuditEntry = "audit_entry"

// The types of audit entries.
const (
	AuditAdded   = "suppression.added"
	AuditRemoved = "suppression.removed"
)

// AuditEntry is one line of the trail (contract: the trail): a suppression
// that a change put on or took off the list, who made it (the key, or the
// agent over SSH; both nil for a removal the service made itself, when an
// entry expired) and why (the reference).
type AuditEntry struct {
	Object      string    `json:"object"`
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   Timestamp `json:"created_at"`
	Suppression Entry     `json:"suppression"`
	Key         *AuditKey `json:"key"`
	// Agent is our service's extension (contract: agents and team
	// rules); a key's change has none.
	Agent     *AuditAgent `json:"agent"`
	Reference *string     `json:"reference"`
	RequestID string      `json:"request_id"`
}

// AuditKey names the key that made a change.
type AuditKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// AuditAgent names the agent who made a change.
type AuditAgent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// AuditList is the answer of GET /audit and GET /suppressions/{ref}/audit.
type AuditList struct {
	Object  string       `json:"object"`
	HasMore bool         `json:"has_more"`
	Data    []AuditEntry `json:"data"`
}

// By says who made the change, for people: "agent" and the agent's name,
// the key's name, "key ID" for a key without one, or "the service" for a change
// without either (an entry that expired).
func (e AuditEntry) By() string {
	switch {
	case e.Agent != nil:
		return "agent " + e.Agent.Name
	case e.Key == nil:
		return "the service"
	case e.Key.Name != "":
		return e.Key.Name
	}
	return "key " + e.Key.ID
}
