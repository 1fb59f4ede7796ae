package storetest

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/shushlist/shush/server/store"
)

// testOneClickKeys: a team has no one-click key until one is asked for
// with create; then it keeps the same one, whoever asks (eight callers at
// once get one key), and each team has its own.
func testOneClickKeys(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	if _, err := st.OneClickKey(ctx(t), tm, false); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a new team's key without create: %v, want ErrNotFound", err)
	}
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := st.OneClickKey(ctx(t), tm, true)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for i, k := range keys {
		if len(k) != 32 || !bytes.Equal(k, keys[0]) {
			t.Fatalf("caller %d got a key of %d bytes, not the first caller's", i, len(k))
		}
	}
	if again, err := st.OneClickKey(ctx(t), tm, false); err != nil || !bytes.Equal(again, keys[0]) {
		t.Fatalf("the key read again differs (%v)", err)
	}
	if o, err := st.OneClickKey(ctx(t), other, true); err != nil || bytes.Equal(o, keys[0]) {
		t.Fatalf("another team's key is the same, or failed: %v", err)
	}
}
