package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/resend/resend-go/v3"
)

// delivery is one POST the receiver got.
type delivery struct {
	header http.Header
	body   string
}

// receiver listens on loopback and hands every delivery to got, answering
// 200.
func receiver() (url string, got <-chan delivery, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	ch := make(chan delivery, 16)
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ch <- delivery{header: r.Header.Clone(), body: string(b)}
		io.WriteString(w, "ok")
	})}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/hooks/go", ch, func() { srv.Close() }, nil
}

func wait(got <-chan delivery, what string) (delivery, error) {
	select {
	case d := <-got:
		return d, nil
	case <-time.After(30 * time.Second):
		return delivery{}, fmt.Errorf("%s: no delivery within 30 s", what)
	}
}

func verifyOptions(d delivery, secret, body string) *resend.VerifyWebhookOptions {
	return &resend.VerifyWebhookOptions{
		Payload: body,
		Headers: resend.WebhookHeaders{
			Id:        d.header.Get("svix-id"),
			Timestamp: d.header.Get("svix-timestamp"),
			Signature: d.header.Get("svix-signature"),
		},
		WebhookSecret: secret,
	}
}

// webhooks runs every webhooks call of the SDK (create, list, get, update,
// remove) and checks a real delivery with its Verify.
func webhooks() error {
	c := resend.NewClient(os.Getenv("RESEND_API_KEY"))
	w := c.Webhooks
	url, got, stop, err := receiver()
	if err != nil {
		return err
	}
	defer stop()

	id, secret, err := createAndRead(w, url)
	if err != nil {
		return err
	}
	if err := updateWebhook(w, id); err != nil {
		return err
	}
	email, err := checkDelivery(c, got, secret)
	if err != nil {
		return err
	}
	gone, err := w.Remove(id)
	if err != nil || gone.Object != "webhook" || gone.Id != id || !gone.Deleted {
		return fmt.Errorf("remove: %+v %v", gone, err)
	}
	if _, err := w.Get(id); err == nil {
		return errors.New("get after remove: still there")
	}
	if _, err := c.Suppressions.Remove(email); err != nil {
		return fmt.Errorf("remove the suppression: %v", err)
	}
	return nil
}

// createAndRead creates a webhook to url, then finds it in the list and
// reads it; it returns its ID and signing secret.
func createAndRead(w resend.WebhooksSvc, url string) (id, secret string, err error) {
	created, err := w.Create(&resend.CreateWebhookRequest{Endpoint: url, Events: []string{"suppression.removed"}})
	if err != nil || created.Object != "webhook" || created.Id == "" || !strings.HasPrefix(created.SigningSecret, "whsec_") {
		return "", "", fmt.Errorf("create: %s %v", created.Id, err)
	}
	id, secret = created.Id, created.SigningSecret

	limit := 100
	list, err := w.ListWithOptions(context.Background(), &resend.ListOptions{Limit: &limit})
	if err != nil || list.Object != "list" {
		return "", "", fmt.Errorf("list: %+v %v", list, err)
	}
	i := slices.IndexFunc(list.Data, func(x resend.WebhookInList) bool { return x.Id == id })
	if i < 0 || list.Data[i].Status != "enabled" || list.Data[i].Endpoint != url || !slices.Equal(list.Data[i].Events, []string{"suppression.removed"}) || list.Data[i].CreatedAt == "" {
		return "", "", fmt.Errorf("list: the new webhook is missing or wrong: %+v", list.Data)
	}
	if _, err := w.List(); err != nil {
		return "", "", fmt.Errorf("list without options: %v", err)
	}

	one, err := w.Get(id)
	if err != nil || one.Object != "webhook" || one.Id != id || one.Endpoint != url || one.SigningSecret != secret || one.Status != "enabled" {
		return "", "", fmt.Errorf("get: %s %s %s %v (secret the same: %v)", one.Id, one.Endpoint, one.Status, err, one.SigningSecret == secret)
	}
	return id, secret, nil
}

// updateWebhook changes the webhook's events, disables it, reads it back
// and enables it again.
func updateWebhook(w resend.WebhooksSvc, id string) error {
	upd, err := w.Update(id, &resend.UpdateWebhookRequest{Events: []string{"suppression.added", "suppression.removed"}})
	if err != nil || upd.Object != "webhook" || upd.Id != id {
		return fmt.Errorf("update events: %+v %v", upd, err)
	}
	disabled := "disabled"
	if _, err := w.Update(id, &resend.UpdateWebhookRequest{Status: &disabled}); err != nil {
		return fmt.Errorf("update status: %v", err)
	}
	one, err := w.Get(id)
	if err != nil || one.Status != "disabled" || !slices.Equal(one.Events, []string{"suppression.added", "suppression.removed"}) {
		return fmt.Errorf("get after update: %s %v %v", one.Status, one.Events, err)
	}
	enabled := "enabled"
	if _, err := w.Update(id, &resend.UpdateWebhookRequest{Status: &enabled}); err != nil {
		return fmt.Errorf("enable: %v", err)
	}
	return nil
}

// checkDelivery adds a suppression and checks the suppression.added
// delivery it makes with the SDK's Verify: the delivery passes, a tampered
// body or another secret does not. It returns the address added.
func checkDelivery(c *resend.Client, got <-chan delivery, secret string) (string, error) {
	w := c.Webhooks
	email := fmt.Sprintf("go-webhook-%d@example.com", time.Now().UnixNano())
	added, err := c.Suppressions.Add(&resend.AddSuppressionRequest{Email: email})
	if err != nil {
		return "", fmt.Errorf("add a suppression: %v", err)
	}
	d, err := wait(got, "the suppression.added delivery")
	if err != nil {
		return "", err
	}
	if err := w.Verify(verifyOptions(d, secret, d.body)); err != nil {
		return "", fmt.Errorf("the SDK's Verify refused the delivery: %v", err)
	}
	if !strings.Contains(d.body, `"type":"suppression.added"`) || !strings.Contains(d.body, `"email":"`+email+`"`) || !strings.Contains(d.body, `"id":"`+added.Id+`"`) {
		return "", fmt.Errorf("the delivery is not the suppression.added of %s: %s", email, d.body)
	}
	if err := w.Verify(verifyOptions(d, secret, strings.Replace(d.body, email, "x"+email, 1))); err == nil {
		return "", errors.New("the SDK's Verify accepted a tampered body")
	}
	if err := w.Verify(verifyOptions(d, "whsec_"+strings.Repeat("A", 32), d.body)); err == nil {
		return "", errors.New("the SDK's Verify accepted another secret")
	}
	return email, nil
}
