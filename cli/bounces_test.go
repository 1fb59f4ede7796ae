package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// dsn is a permanent failure report of Postfix for gone@example.com.
const dsn = `From: MAILER-DAEMON@mx.shush.example (Mail Delivery System)
To: news@shush.example
Subject: Undelivered Mail Returned to Sender
Message-ID: <20261101100405.ABC123@mx.shush.example>
Date: Sun, 01 Nov 2026 10:04:05 +0000
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="b1"

--b1
Content-Type: text/plain

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<gone@example.com>: host mx.example.com said: 550 5.1.1 <gone@example.com>:
    Recipient address rejected: User unknown

--b1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.shush.example
Arrival-Date: Sun, 01 Nov 2026 10:04:04 +0000

Final-Recipient: rfc822; gone@example.com
Original-Recipient: rfc822;gone@example.com
Action: failed
Status: 5.1.1
Remote-MTA: dns; mx.example.com
Diagnostic-Code: smtp; 550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown

--b1--
`

func TestBouncesIngestListsAPermanentFailure(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	file := writeFile(t, "dsn.eml", dsn)

	// A dry run reads and sends nothing.
	if err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: file, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	var doc ingestDoc
	ta.decode(t, &doc)
	if !doc.DryRun || doc.Messages != 1 || len(doc.Data) != 1 || doc.Data[0].Email != "gone@example.com" || doc.Data[0].Status != "5.1.1" {
		t.Fatalf("dry run %+v", doc)
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Fatalf("a dry run listed %v", l)
	}

	ta.reset()
	if err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: file, Reference: "sweep"}); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &doc)
	if len(doc.Data) != 1 || doc.Data[0].ID == "" {
		t.Errorf("ingest %+v", doc)
	}
	e, err := svc.client().Get(ctx, "gone@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if e.Origin != "bounce" || e.Evidence == nil || e.Evidence.Status != "5.1.1" {
		t.Errorf("entry %+v, evidence %+v", e, e.Evidence)
	}

	// The same message again is taken in once.
	ta.reset()
	ta.human()
	if err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: file}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "Read 1 message: 1 report: 1 duplicate.") {
		t.Errorf("ingest again for a person:\n%s", ta.out.String())
	}
}

func TestBouncesIngestRefusesAndNamesUnreadable(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	wantErr(t, runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app}), ExitUsage, "bounces ingest needs --file F")
	wantErr(t, runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: writeFile(t, "x.eml", dsn), Reference: "a\nb"}), ExitUsage, "--reference")
	if l := svc.listed(t); len(l) != 0 {
		t.Errorf("a refused ingest listed %v", l)
	}
}

func TestTicketReadSaysWhatATicketAsks(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	file := writeFile(t, "T-4711.txt", "From: Jane <jane@customer.example>\nTo: support@shush.example\n\nPlease remove bob@customer.example from your suppression list, he wants the newsletter again.\n")
	if err := runTicketRead(ctx, &ticketReadOptions{app: ta.app, File: file}); err != nil {
		t.Fatal(err)
	}
	var r ticket.Reading
	ta.decode(t, &r)
	if !strings.Contains(ta.out.String(), "bob@customer.example") || !strings.Contains(ta.out.String(), `"remove"`) {
		t.Errorf("reading:\n%s", ta.out.String())
	}

	ta.reset()
	ta.human()
	if err := runTicketRead(ctx, &ticketReadOptions{app: ta.app, File: file}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String(), "bob@customer.example") || !strings.Contains(strings.ToLower(ta.out.String()), "remove") {
		t.Errorf("reading for a person:\n%s", ta.out.String())
	}
	wantErr(t, runTicketRead(ctx, &ticketReadOptions{app: ta.app}), ExitUsage, "--file is required")
}
