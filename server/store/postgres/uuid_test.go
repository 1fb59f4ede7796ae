package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// A canonical ID string is sent in the binary format, as the same 16
// bytes PostgreSQL reads from its text; any other string is sent as text,
// and PostgreSQL reads it (another spelling) or refuses it, as it did.
func TestUUIDStrings(t *testing.T) {
	const id = "01a221a9-088e-74b6-9946-67fd6aa0726d"
	m := pgtype.NewMap()
	for _, bad := range []string{"", "01a221a9088e74b6994667fd6aa0726d", "01a221a9-088e-74b6-9946-67fd6aa0726g", "01a221a9-088e-74b6-9946_67fd6aa0726d"} {
		if _, err := (encodeUUIDString{}).Encode(bad, nil); err == nil {
			t.Errorf("%q was encoded", bad)
		}
	}
	got, err := (encodeUUIDString{}).Encode(strings.ToUpper(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want pgtype.UUID
	if err := m.Scan(pgtype.UUIDOID, pgtype.TextFormatCode, []byte(id), &want); err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want.Bytes[:]) {
		t.Fatalf("encoded %x, want %x", got, want.Bytes)
	}

	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var one string
	var many []string
	err = st.db.pool.QueryRow(ctx, `SELECT $1::uuid::text, $2::uuid[]::text[]`, strings.ToUpper(id), []string{id, "{01a221a9088e74b6994667fd6aa0726d}"}).Scan(&one, &many)
	if err != nil || one != id || len(many) != 2 || many[0] != id || many[1] != id {
		t.Fatalf("read %q %q, %v", one, many, err)
	}
	if err := st.db.pool.QueryRow(ctx, `SELECT $1::uuid::text`, "not-an-id").Scan(&one); err == nil || !strings.Contains(err.Error(), "invalid input syntax for type uuid") {
		t.Fatalf("a string that is no ID: %v", err)
	}
}
