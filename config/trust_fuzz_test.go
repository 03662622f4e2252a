package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzTrustStore: any bytes as the trust store file never panic, never
// trust a file they do not list with its hash, and a store that cannot be
// read is reported, not silently replaced, by Trust.
func FuzzTrustStore(f *testing.F) {
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"version":1,"files":[]}`,
		`{"version":1,"files":[{"path":"/w/.aide/config.json","sha256":"ab","trustedAt":"2026-01-01T00:00:00Z"}]}`,
		`{"files":[{"path":"/w/.aide/config.json"}]}`, `{"files":[null]}`, `{"files":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		s := TrustStore{Path: filepath.Join(dir, "trusted.json")}
		if err := os.WriteFile(s.Path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		list, err := s.List()
		if s.Trusted("/never/listed/.aide/config.json", Hash([]byte("x"))) {
			t.Fatal("an unlisted file is trusted")
		}
		if s.Trusted("/w/.aide/config.json", "") {
			for _, e := range list {
				if e.Path == "/w/.aide/config.json" && e.SHA256 == "" {
					return // listed with an empty hash: the file's hash is never empty
				}
			}
			t.Fatal("trusted without being listed")
		}
		terr := s.Trust("/w2/.aide/config.json", Hash([]byte("y")), time.Now())
		if err != nil && terr == nil {
			t.Fatalf("an unreadable store (%v) was overwritten by Trust", err)
		}
		if err == nil && terr != nil {
			t.Fatalf("Trust on a readable store: %v", terr)
		}
		if err == nil && !s.Trusted("/w2/.aide/config.json", Hash([]byte("y"))) {
			t.Fatal("Trust did not record")
		}
	})
}
