package ticket

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestZZPerf(t *testing.T) {
	var b strings.Builder
	b.WriteString("Thanks. Please block only ")
	for i := range 5000 {
		fmt.Fprintf(&b, "user.%d@x.example, ", i)
	}
	b.WriteString("except user.1 and keep info, just those.\n")
	start := time.Now()
	tk := Read(b.String())
	_ = tk.Reading(Own{})
	t.Logf("one line of 5000: %v", time.Since(start))
}
