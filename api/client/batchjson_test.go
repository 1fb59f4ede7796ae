package client

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/shushlist/shush/api"
)

var batchAnswers = []string{
	`{"data":[]}`,
	`{"data":[{"object":"suppression","id":"3f1c","email":"a@example.com","created":true},{"object":"suppression","id":"9a2b","email":"b@example.com","created":false}]}` + "\n",
	` { "data" : [ { "id" : "x" , "deleted" : true } ] } `,
	`{"data":[{"id":"x","created":null,"note":null,"expires_at":null}]}`,
	`{"data":[{"id":"x","note":"keep","expires_at":"2026-01-02T03:04:05.000Z"}]}`,
	`{"data":[{"id":"x","expires_at":"2026-01-02 03:04:05+00"}]}`,
	`{"data":[{"id":"x","expires_at":"soon"}]}`,
	`{"data":[{"id":"x","expires_at":5}]}`,
	`{"data":[{}]}`,
	`{"data":[{"id":"x","id":"y","created":true,"created":false}]}`,
	`{"data":[{"ID":"x","Email":"a@example.com"}]}`,
	`{"data":[{"id":"x","other":1}]}`,
	`{"data":[{"id":"a\u0026b@example.com","email":"é@example.com"}]}`,
	`{"data":[{"id":"x"},]}`,
	`{"data":[{"id":"x",}]}`,
	`{"data":[{"id":"x"}]} x`,
	`{"data":[{"id":"x"}]`,
	`{"data":null}`,
	`{"data":[],"object":"list"}`,
	`{"object":"list","data":[]}`,
	`{"data":[{"id":"x","created":"yes"}]}`,
	`{"data":[{"id":"x","deleted":nul}]}`,
	`{"data":[{"id":"x","created":tru}]}`,
	`{"data":[{"id":"x","email":"a` + "\x01" + `"}]}`,
	`[]`,
	`null`,
	``,
}

// TestDecodeBatchAsUnmarshal: a batch answer is accepted when, and only
// when, encoding/json accepts it (a foreign service's answers included:
// names in another case, unknown names, a name twice), and decodes to
// what encoding/json makes of it.
func TestDecodeBatchAsUnmarshal(t *testing.T) {
	for _, body := range batchAnswers {
		checkDecodeBatch(t, []byte(body))
	}
}

func FuzzDecodeBatch(f *testing.F) {
	for _, body := range batchAnswers {
		f.Add([]byte(body))
	}
	f.Fuzz(checkDecodeBatch)
}

func checkDecodeBatch(t *testing.T, body []byte) {
	var got, want api.BatchResponse
	gerr := decodeBatch(body, &got, 3)
	werr := json.Unmarshal(body, &want)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v; encoding/json says %v", body, gerr, werr)
	}
	if gerr != nil || len(got.Data) == 0 && len(want.Data) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q:\n got %+v\nwant %+v", body, got.Data, want.Data)
	}
}

// BenchmarkDecodeBatch: a 100-item answer of shush serve, decoded by
// decodeBatch and, as the floor it replaced, by encoding/json:
//
//	go test ./api/client -run '^$' -bench DecodeBatch -benchmem
func BenchmarkDecodeBatch(b *testing.B) {
	var body []byte
	body = append(body, `{"data":[`...)
	for i := range 100 {
		if i > 0 {
			body = append(body, ',')
		}
		body = fmt.Appendf(body, `{"object":"suppression","id":"01a2100d-a809-7062-ab4a-8e48e28e%04d","email":"u%08d@example.com","created":true}`, i, i)
	}
	body = append(body, `]}`...)
	b.Run("decodeBatch", func(b *testing.B) {
		for b.Loop() {
			var out api.BatchResponse
			if err := decodeBatch(body, &out, 100); err != nil || len(out.Data) != 100 {
				b.Fatal(err, len(out.Data))
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var out api.BatchResponse
			if err := json.Unmarshal(body, &out); err != nil || len(out.Data) != 100 {
				b.Fatal(err, len(out.Data))
			}
		}
	})
}
