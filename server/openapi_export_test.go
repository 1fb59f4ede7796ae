package server

// OpenAPI returns the OpenAPI document the service serves.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }
