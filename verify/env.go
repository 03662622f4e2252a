package verify

import (
	"os"
	"strings"

	"github.com/aide-lsp/aide-lsp/model"
)

// A verification command is the user's own (config: only the user's file
// or a trusted workspace file names one), but it runs on text a model
// wrote: a test the model added can print the environment, and that output
// goes back to the model. So no credential from the environment reaches
// it. EnvAllowed is the one decision; CleanEnv applies it.

// EnvAllowed reports whether a variable may be passed to a verification
// command. It may not when:
//   - its name is one of keyVars (the providers' apiKeyEnv: whatever a
//     user calls the variable holding a model key);
//   - its name says it holds a credential (a word such as KEY, TOKEN,
//     SECRET, PASSWORD, AUTH, SESSION, COOKIE, CREDENTIALS, PAT, or one of
//     the agent and ticket sockets: SSH_AUTH_SOCK, KRB5CCNAME, ...);
//   - its value looks like one: a key the model layer read (model.Redact
//     remembers them), a bearer token, a URL with user-info, a key of a
//     well-known shape.
//
// PWD and OLDPWD are dropped too: the command's PWD is the scratch copy.
func EnvAllowed(name, value string, keyVars []string) bool {
	if name == "" || name == "PWD" || name == "OLDPWD" {
		return false
	}
	for _, k := range keyVars {
		if k != "" && strings.EqualFold(k, name) {
			return false
		}
	}
	if credentialName(name) {
		return false
	}
	return model.Redact(value) == value
}

// credentialWords are name words (split at "_", "-", ".") that mark a
// credential.
var credentialWords = map[string]bool{
	"KEY": true, "KEYS": true, "APIKEY": true, "TOKEN": true, "TOKENS": true,
	"SECRET": true, "SECRETS": true, "PASS": true, "PASSWORD": true,
	"PASSWD": true, "PASSPHRASE": true, "PWD": true, "AUTH": true, "OAUTH": true,
	"CREDENTIAL": true, "CREDENTIALS": true, "CREDS": true, "SESSION": true,
	"COOKIE": true, "COOKIES": true, "PAT": true, "PRIVATE": true, "SAS": true,
	"ASKPASS": true, "SIGNING": true, "CERT": true, "KEYTAB": true,
}

// credentialParts are fragments that mark a credential wherever they are
// in the name (GITHUBTOKEN, MYAPIKEY, DB_PASSWORD_FILE).
var credentialParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "API_KEY", "CREDENTIAL", "PRIVATEKEY", "PRIVATE_KEY", "ACCESSKEY", "ACCESS_KEY"}

// credentialNames are whole names of sockets and files that grant access.
var credentialNames = map[string]bool{
	"SSH_AUTH_SOCK": true, "SSH_AGENT_PID": true, "GPG_AGENT_INFO": true,
	"KRB5CCNAME": true, "NETRC": true, "DOCKER_AUTH_CONFIG": true,
}

func credentialName(name string) bool {
	up := strings.ToUpper(name)
	if credentialNames[up] {
		return true
	}
	for _, part := range credentialParts {
		if strings.Contains(up, part) {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(up, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if credentialWords[w] {
			return true
		}
	}
	return false
}

// CleanEnv is environ (nil: os.Environ()) with what EnvAllowed refuses
// left out.
func CleanEnv(environ []string, keyVars []string) []string {
	if environ == nil {
		environ = os.Environ()
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !EnvAllowed(name, value, keyVars) {
			continue
		}
		out = append(out, kv)
	}
	return out
}
