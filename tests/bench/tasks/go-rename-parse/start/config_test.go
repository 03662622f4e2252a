package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseConfig(t *testing.T) {
	got := ParseConfig("a=1\n# comment\n\n b = 2 ")
	if len(got) != 2 || got["a"] != "1" || got["b"] != "2" {
		t.Fatalf("ParseConfig = %v", got)
	}
	if Defaults["level"] != "info" {
		t.Fatalf("Defaults = %v", Defaults)
	}
}

func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "app.conf")
	if err := os.WriteFile(p, []byte("port=8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(p)
	if err != nil || got["port"] != "8080" {
		t.Fatalf("Load = %v, %v", got, err)
	}
}
