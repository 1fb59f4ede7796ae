package cli_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

// The keychain is opt-in per profile: set-profile --keychain moves the key
// out of the config file into the OS keychain (here go-keyring's in-memory
// stand-in: tests need no keychain), every command then finds it there,
// and a key given again without --keychain goes back to the file. In
// process, not through the binary: only this process can hold the
// stand-in. (main_conventions_test.go drives the binary where no keychain
// runs.)
func TestKeychainKeepsTheProfilesKey(t *testing.T) {
	keyring.MockInit()
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"),
		"XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"SHUSH_CONFIG_DIR": "", "SHUSH_PROFILE": "", "SHUSH_BASE_URL": "", "SHUSH_API_KEY": "", "RESEND_API_KEY": ""} {
		t.Setenv(k, v)
	}
	svc := servicetest.Start(t, server.Options{Rate: 1000})
	ctx := context.Background()
	file := filepath.Join(home, "config", "shush", "config.toml")

	code, _, errOut := runShush(t, ctx, "config", "set-profile", "work", "--base-url", svc.URL, "--api-key", svc.Key, "--keychain", "--use")
	if code != 0 || !strings.Contains(errOut, `its key is in the OS keychain (service "shush", account "work")`) {
		t.Fatalf("set-profile --keychain: exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(file)
	if strings.Contains(string(b), svc.Key) || !strings.Contains(string(b), "keychain = true") {
		t.Errorf("the config file after --keychain:\n%s", b)
	}
	if got, err := keyring.Get("shush", "work"); err != nil || got != svc.Key {
		t.Errorf("the keychain holds %q (%v), want the key", got, err)
	}

	if code, _, errOut := runShush(t, ctx, "suppressions", "add", "kept@example.com"); code != 0 {
		t.Fatalf("a command with the key from the keychain: exit %d: %s", code, errOut)
	}
	code, out, _ := runShush(t, ctx, "config", "--json")
	var view struct {
		APIKey struct{ Value, Source string } `json:"api_key"`
	}
	if err := json.Unmarshal([]byte(out), &view); code != 0 || err != nil {
		t.Fatalf("config --json: exit %d: %s", code, out)
	}
	if view.APIKey.Source != `the OS keychain (profile "work")` || strings.Contains(out, svc.Key) {
		t.Errorf("config shows the key as %+v", view.APIKey)
	}

	// A key given again without --keychain goes back to the file.
	if code, _, errOut := runShush(t, ctx, "config", "set-profile", "work", "--api-key", svc.Key); code != 0 {
		t.Fatalf("set-profile back to the file: exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), svc.Key) || strings.Contains(string(b), "keychain") {
		t.Errorf("the config file after moving the key back:\n%s", b)
	}
	if _, err := keyring.Get("shush", "work"); !errors.Is(err, keyring.ErrNotFound) {
		t.Errorf("the keychain still holds the key: %v", err)
	}

	// A keychain that lost the key says what to do, and exits 2.
	runShush(t, ctx, "config", "set-profile", "work", "--keychain")
	keyring.Delete("shush", "work")
	code, _, errOut = runShush(t, ctx, "suppressions", "list")
	if code != 2 || !strings.Contains(errOut, "set-profile work --api-key-stdin --keychain") {
		t.Errorf("a key missing from the keychain: exit %d: %s", code, errOut)
	}
}
