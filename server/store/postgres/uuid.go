package postgres

import (
	"context"
	"encoding/hex"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The statements take IDs as strings. pgx has no binary encoding of a
// string as a uuid: for each such parameter it first tried the binary
// format, failed, formatted an error naming the whole value (an array of
// a hundred IDs, for a batch), and then sent the text. registerUUIDs gives
// it one, for the canonical form (8-4-4-4-12 hex digits); any other string
// still goes as text, for PostgreSQL to read or refuse as before.
func registerUUIDs(_ context.Context, conn *pgx.Conn) error {
	m := conn.TypeMap()
	t := &pgtype.Type{Name: "uuid", OID: pgtype.UUIDOID, Codec: uuidCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_uuid", OID: pgtype.UUIDArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
	return nil
}

// uuidCodec is pgx's uuid codec that also encodes a string in the binary
// format.
type uuidCodec struct{ pgtype.UUIDCodec }

func (c uuidCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if _, ok := value.(string); ok && format == pgtype.BinaryFormatCode {
		return encodeUUIDString{}
	}
	return c.UUIDCodec.PlanEncode(m, oid, format, value)
}

// encodeUUIDString writes a canonical UUID string's 16 bytes.
type encodeUUIDString struct{}

var errNotCanonical = errors.New("not a canonical UUID")

func (encodeUUIDString) Encode(value any, buf []byte) ([]byte, error) {
	s := value.(string)
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return nil, errNotCanonical
	}
	var b [16]byte
	j := 0
	for _, part := range [5][2]int{{0, 8}, {9, 13}, {14, 18}, {19, 23}, {24, 36}} {
		n, err := hex.Decode(b[j:], []byte(s[part[0]:part[1]]))
		if err != nil {
			return nil, errNotCanonical
		}
		j += n
	}
	return append(buf, b[:]...), nil
}
