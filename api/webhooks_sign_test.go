package api_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
)

// The vector was computed outside Go, with
//
//	printf '%s' 'msg_2Kx7.1735689600.{"type":"suppression.added","created_at":"2025-01-01T00:00:00.000Z"}' |
//	  openssl dgst -sha256 -mac HMAC -macopt hexkey:000102030405060708090a0b0c0d0e0f1011121314151617 -binary | base64
//
// and again with node's crypto.createHmac; the secret is whsec_ and the
// base64 of the bytes 0x00..0x17.
const (
	vecSecret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX"
	vecID     = "msg_2Kx7"
	vecUnix   = 1735689600
	vecBody   = `{"type":"suppression.added","created_at":"2025-01-01T00:00:00.000Z"}`
	vecSig    = "v1,MHJfhbw2Qz2F7P37DmOVR2FqATCb4ykgx2qf4jTNdtg="
)

func TestSignWebhookKnownVector(t *testing.T) {
	got, err := api.SignWebhook(vecSecret, vecID, time.Unix(vecUnix, 0), []byte(vecBody))
	if err != nil {
		t.Fatal(err)
	}
	if got != vecSig {
		t.Fatalf("signature %q, want %q", got, vecSig)
	}
	// Sub-second parts of the time do not change the signed timestamp.
	got2, err := api.SignWebhook(vecSecret, vecID, time.Unix(vecUnix, 999_000_000), []byte(vecBody))
	if err != nil || got2 != vecSig {
		t.Fatalf("with milliseconds: %q, %v", got2, err)
	}
}

func TestSignWebhookBadSecret(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_not base64!"} {
		if _, err := api.SignWebhook(s, "x", time.Unix(1, 0), nil); !errors.Is(err, api.ErrWebhookSecret) {
			t.Errorf("secret %q: err %v, want ErrWebhookSecret", s, err)
		}
	}
}

func vecHeaders(prefix, sig string) http.Header {
	h := http.Header{}
	h.Set(prefix+"-id", vecID)
	h.Set(prefix+"-timestamp", "1735689600")
	h.Set(prefix+"-signature", sig)
	return h
}

func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(vecUnix, 0)
	other := "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	cases := []struct {
		name    string
		secret  string
		headers http.Header
		body    string
		now     time.Time
		want    error
	}{
		{"svix headers", vecSecret, vecHeaders("svix", vecSig), vecBody, now, nil},
		{"webhook headers", vecSecret, vecHeaders("webhook", vecSig), vecBody, now, nil},
		{"secret without prefix", vecSecret[len("whsec_"):], vecHeaders("svix", vecSig), vecBody, now, nil},
		{"second of two signatures (rotation)", vecSecret, vecHeaders("svix", other+" "+vecSig), vecBody, now, nil},
		{"other schemes skipped", vecSecret, vecHeaders("svix", "v1a,xyz "+vecSig), vecBody, now, nil},
		{"299 s late", vecSecret, vecHeaders("svix", vecSig), vecBody, now.Add(299 * time.Second), nil},
		{"300 s early", vecSecret, vecHeaders("svix", vecSig), vecBody, now.Add(-300 * time.Second), nil},
		{"tampered body", vecSecret, vecHeaders("svix", vecSig), vecBody + " ", now, api.ErrWebhookSignature},
		{"other secret", "whsec_////////////////////////////////", vecHeaders("svix", vecSig), vecBody, now, api.ErrWebhookSignature},
		{"only a wrong signature", vecSecret, vecHeaders("svix", other), vecBody, now, api.ErrWebhookSignature},
		{"signature without version", vecSecret, vecHeaders("svix", vecSig[3:]), vecBody, now, api.ErrWebhookSignature},
		{"301 s late", vecSecret, vecHeaders("svix", vecSig), vecBody, now.Add(301 * time.Second), api.ErrWebhookTooOld},
		{"301 s early", vecSecret, vecHeaders("svix", vecSig), vecBody, now.Add(-301 * time.Second), api.ErrWebhookTooNew},
		{"no headers", vecSecret, http.Header{}, vecBody, now, api.ErrWebhookHeaders},
		{"bad secret", "whsec_!!", vecHeaders("svix", vecSig), vecBody, now, api.ErrWebhookSecret},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := api.VerifyWebhook(c.secret, c.headers, []byte(c.body), c.now)
			if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
		})
	}

	h := vecHeaders("svix", vecSig)
	h.Set("svix-timestamp", "1735689600.5")
	if err := api.VerifyWebhook(vecSecret, h, []byte(vecBody), now); !errors.Is(err, api.ErrWebhookTimestamp) {
		t.Fatalf("fractional timestamp: %v", err)
	}
}

// A signature made by SignWebhook verifies, and its message holds nothing of
// the secret when it fails.
func TestSignThenVerify(t *testing.T) {
	ts := time.Now()
	sig, err := api.SignWebhook(vecSecret, "evt_1", ts, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	if err := api.VerifyWebhook(vecSecret, h, []byte("{}"), ts); err != nil {
		t.Fatal(err)
	}
	h.Set("webhook-id", "evt_2")
	err = api.VerifyWebhook(vecSecret, h, []byte("{}"), ts)
	if err == nil || strings.Contains(err.Error(), vecSecret[len("whsec_"):]) || strings.Contains(err.Error(), sig[3:]) {
		t.Fatalf("other id: %v", err)
	}
}

// BenchmarkVerifyWebhook is a receiver's cost per delivery: decoding the
// secret, reading the headers and one HMAC over a typical payload, with the
// matching signature second of two (a rotation). BenchmarkWebhookHMACFloor
// is the HMAC alone, the floor it is measured against.
func BenchmarkVerifyWebhook(b *testing.B) {
	body := []byte(`{"type":"suppression.added","created_at":"2026-11-24T08:57:44.321Z","data":{"id":"01a20cc6-7c81-79f3-b801-33158500a89a","email":"bob@example.com","origin":"manual","source_id":null,"created_at":"2026-11-24T08:57:44.321Z"}}`)
	now := time.Unix(vecUnix, 0)
	sig, err := api.SignWebhook(vecSecret, vecID, now, body)
	if err != nil {
		b.Fatal(err)
	}
	h := vecHeaders("svix", "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= "+sig)
	b.ReportAllocs()
	for b.Loop() {
		if err := api.VerifyWebhook(vecSecret, h, body, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWebhookHMACFloor(b *testing.B) {
	body := []byte(`{"type":"suppression.added","created_at":"2026-11-24T08:57:44.321Z","data":{"id":"01a20cc6-7c81-79f3-b801-33158500a89a","email":"bob@example.com","origin":"manual","source_id":null,"created_at":"2026-11-24T08:57:44.321Z"}}`)
	key := make([]byte, 24)
	b.ReportAllocs()
	for b.Loop() {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(vecID + ".1735689600."))
		m.Write(body)
		m.Sum(nil)
	}
}
