package client

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/shushlist/shush/api"
)

// answerOptions make go-json-experiment/json accept what encoding/json
// accepts of a batch answer: names matched without regard to case (but
// exactly as to '-' and '_'), a name given twice (the last one counts),
// invalid UTF-8 (made U+FFFD). Unknown names are ignored, as in v1. Its
// errors are its own, not encoding/json's.
var answerOptions = json.JoinOptions(
	json.MatchCaseInsensitiveNames(true),
	jsonv1.MatchCaseSensitiveDelimiter(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
)

// decodeBatch decodes a batch answer into out. A batch answer is read per
// batch of a run that may have millions of entries, and decoding them was
// most of the CPU a run cost the client: go-json-experiment/json decodes
// in one pass, where encoding/json checks the whole text first and then
// decodes it, about twice as fast. want is how many items the answer
// likely has (the addresses sent), room made for them at once.
func decodeBatch(body []byte, out *api.BatchResponse, want int) error {
	if want > 0 && out.Data == nil {
		out.Data = make([]api.Suppression, 0, want)
	}
	return json.Unmarshal(body, out, answerOptions)
}

// batchAnswer is where a batch answer is decoded, with how many addresses
// the request sent.
type batchAnswer struct {
	out  *api.BatchResponse
	sent int
}
