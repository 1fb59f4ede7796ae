package config

import (
	"errors"
	"fmt"

	"github.com/zalando/go-keyring"
)

// KeychainService is the name the OS keychain (macOS Keychain, the Secret
// Service of GNOME or KDE, Windows Credential Manager) keeps shush's keys
// under; each profile's key is the secret of the account of its name.
const KeychainService = "shush"

// The keychain is opt-in, per profile (set-profile --keychain): the 0600
// config file stays the default, because a keychain is not there on every
// machine (a server, a container, CI) and a key it cannot reach would stop
// shush. A profile with keychain = true keeps no api_key in the file.

// StoreInKeychain puts the key of profile in the OS keychain.
func StoreInKeychain(profile, key string) error {
	if err := keyring.Set(KeychainService, profile, key); err != nil {
		return fmt.Errorf("the OS keychain cannot store the key of profile %q (%v); leave out --keychain to keep it in the config file (mode 0600)", profile, err)
	}
	return nil
}

// ForgetInKeychain deletes the key of profile from the OS keychain; one
// that is not there is no error.
func ForgetInKeychain(profile string) error {
	if err := keyring.Delete(KeychainService, profile); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("the OS keychain cannot delete the key of profile %q: %v", profile, err)
	}
	return nil
}

// keychainKey reads the key of profile from the OS keychain.
func keychainKey(profile string) (string, error) {
	key, err := keyring.Get(KeychainService, profile)
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return "", fmt.Errorf("profile %q keeps its key in the OS keychain, which has none for it; store it again with: shush config set-profile %s --api-key-stdin --keychain", profile, profile)
	case err != nil:
		return "", fmt.Errorf("profile %q keeps its key in the OS keychain, which cannot be read (%v); give the key with SHUSH_API_KEY or --api-key-file meanwhile", profile, err)
	}
	return key, nil
}

// keychainSource is how Setting.Source names a key from the keychain.
func keychainSource(profile string) string {
	return fmt.Sprintf("the OS keychain (profile %q)", profile)
}
