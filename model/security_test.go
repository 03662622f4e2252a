package model_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
)

type recordingTransport struct{ hosts []string }

func (r *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r.hosts = append(r.hosts, req.URL.Host)
	return nil, errors.New("recordingTransport: no network in this test")
}

// A key never travels over plain http to a host that is not loopback,
// unless the user's own configuration names that exact URL.
func TestKeyNotSentOverPlainHTTP(t *testing.T) {
	env := func(k string) string { return map[string]string{"LAN_KEY": "lan-secret-123456"}[k] }
	providers := map[string]model.ProviderConfig{"lan": {Kind: "openai", BaseURL: "http://10.1.2.3:8000/v1", APIKeyEnv: "LAN_KEY"}}
	req := model.Request{Model: "lan/m", Messages: []model.Message{{Role: "user", Content: "hi"}}}

	rt := &recordingTransport{}
	r := model.NewRouter(providers, model.Options{Env: env, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1})
	_, err := r.Chat(context.Background(), req, nil)
	var me *model.Error
	if !errors.As(err, &me) || me.Kind != model.ErrConfig || !strings.Contains(err.Error(), "plain http") || !strings.Contains(err.Error(), "config.json") {
		t.Fatalf("want a refusal naming the fix, got %v", err)
	}
	if len(rt.hosts) != 0 {
		t.Fatalf("the request went out: %v", rt.hosts)
	}
	if _, err := r.ListModels(context.Background(), "lan/m"); err == nil || len(rt.hosts) != 0 {
		t.Fatalf("ListModels (doctor) sent the key over http: %v %v", err, rt.hosts)
	}

	// Named in the user's config: it goes (and fails in the transport).
	rt = &recordingTransport{}
	r = model.NewRouter(providers, model.Options{Env: env, HTTPClient: &http.Client{Transport: rt}, MaxRetries: -1,
		HTTPAllowed: []string{"http://10.1.2.3:8000/v1/"}})
	_, _ = r.Chat(context.Background(), req, nil)
	if len(rt.hosts) != 1 || rt.hosts[0] != "10.1.2.3:8000" {
		t.Fatalf("an allowed LAN URL was not used: %v", rt.hosts)
	}
}

// A provider that quotes the key (and a Bearer header) back in its error
// body: the error the user sees has neither.
func TestProviderErrorEchoingTheKeyIsRedacted(t *testing.T) {
	const key = "sk-REDACTTEST-9f8e7d6c5b4a3210"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s (header %s)"}}`, key, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://user:hunter2pass@", 1) + "/v1"
	r := model.NewRouter(map[string]model.ProviderConfig{"p": {Kind: "openai", BaseURL: base, APIKeyEnv: "P_KEY"}},
		model.Options{Env: func(k string) string { return map[string]string{"P_KEY": key}[k] }, MaxRetries: -1})
	_, err := r.Chat(context.Background(), model.Request{Model: "p/m", Messages: []model.Message{{Role: "user", Content: "hi"}}}, nil)
	if err == nil {
		t.Fatal("want the 401")
	}
	msg := err.Error()
	for _, secret := range []string{key, "REDACTTEST", "hunter2pass"} {
		if strings.Contains(msg, secret) {
			t.Fatalf("the error shows %q: %s", secret, msg)
		}
	}
	if !strings.Contains(msg, "refused the credentials") {
		t.Fatalf("the error lost its meaning: %s", msg)
	}
}

func TestRedact(t *testing.T) {
	model.RememberSecret("my-remembered-value-42")
	in := "a my-remembered-value-42 b Authorization: Bearer abcdef123456 c https://u:p4ss@h.example/v1 d sk-ant-0123456789abcdefXYZ"
	out := model.Redact(in)
	for _, s := range []string{"my-remembered-value-42", "abcdef123456", "p4ss", "sk-ant-0123456789abcdefXYZ"} {
		if strings.Contains(out, s) {
			t.Errorf("%q kept in %q", s, out)
		}
	}
	if !strings.Contains(out, "https://[redacted]@h.example/v1") {
		t.Errorf("URL mangled: %q", out)
	}
}
