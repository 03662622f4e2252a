package modeltest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

func TestModelsEndpoint(t *testing.T) {
	srv := modeltest.NewOpenAI(t)
	resp, err := http.Get(srv.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) == 0 {
		t.Fatalf("models list: %v %+v", err, list)
	}
	if got := srv.Requests(); len(got) != 1 || got[0].Path != "/v1/models" {
		t.Errorf("recorded %+v", got)
	}
}

func TestScriptRunsOutVisibly(t *testing.T) {
	for _, srv := range []*modeltest.Server{modeltest.NewOpenAI(t), modeltest.NewAnthropic(t)} {
		path := map[string]string{"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}[srv.Kind]
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(`{"model":"m"}`))
		req.Header.Set("Authorization", "Bearer k")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || !strings.Contains(string(body), "script ran out") {
			t.Errorf("%s: %d %s", srv.Kind, resp.StatusCode, body)
		}
		if h := srv.Requests()[0].Headers["authorization"]; h != "Bearer k" {
			t.Errorf("%s: recorded authorization %q", srv.Kind, h)
		}
	}
}
