package workspace

import "testing"

// The names of the built-in deny list (contract §3) are denied.
func TestBuiltinDenyCoversMoreSecrets(t *testing.T) {
	w, err := Open([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"secrets/db.txt", "infra/secrets/x.yaml", "prod.tfvars", "terraform.tfstate", "terraform.tfstate.backup",
		".git-credentials", "home/.ssh2/id_ecdsa", "id_ecdsa.pub", "id_dsa", ".docker/config.json", ".kube/config",
		"cert.p12", "cert.pfx", "app.jks", "release.keystore", ".pgpass", ".vault-token", ".yarnrc.yml", ".envrc",
		"gcloud/application_default_credentials.json"} {
		if !w.Denied(rel) {
			t.Errorf("%s is not denied", rel)
		}
	}
	for _, rel := range []string{"main.go", "secretsanta.go", "docs/keystore.md"} {
		if w.Denied(rel) {
			t.Errorf("%s is denied", rel)
		}
	}
}

// On a case-insensitive file system (macOS, Windows) ".ENV" is ".env";
// on Windows "key.pem." and "key.pem:stream" open key.pem.
func TestDenyOnCaseInsensitiveAndWindowsNames(t *testing.T) {
	fold, win := foldCase, windowsNames
	t.Cleanup(func() { foldCase, windowsNames = fold, win })
	foldCase, windowsNames = true, true
	w, err := Open([]string{t.TempDir()}, []string{"Private/**"})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".ENV", "Config/.Env.Local", "KEYS/Server.PEM", "key.pem.", "key.pem ", "key.pem:stream", ".GIT/config", "private/x.txt", "PRIVATE/y"} {
		if !w.Denied(rel) {
			t.Errorf("%s is not denied on a case-insensitive Windows-like system", rel)
		}
	}
	if w.Denied("main.go") {
		t.Error("main.go denied")
	}
	foldCase, windowsNames = false, false
	w, _ = Open([]string{t.TempDir()}, nil)
	if w.Denied(".ENV") {
		t.Error("on a case-sensitive system .ENV is another file than .env")
	}
}
