package model

import (
	"context"
	"fmt"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// ListModels asks the provider of a model id which models it serves (GET
// /models on both wires), for `aide-lsp doctor`. It uses the same resolution,
// key rules and error messages as Chat, without retries: doctor reports
// what it sees now.
func (r *Router) ListModels(ctx context.Context, id string) ([]string, error) {
	res, err := r.Resolve(id)
	if err != nil {
		return nil, err
	}
	if res.Kind == "replay" {
		return nil, nil // a cassette has no model list
	}
	info := callInfo{provider: res.Provider, kind: res.Kind, model: res.Model, baseURL: res.BaseURL,
		keyEnv: res.APIKeyEnv, role: RoleArchitect, timeout: r.opts.Timeout, maxBytes: r.opts.MaxResponseBytes}
	key := ""
	if res.APIKeyEnv != "" {
		if key = r.opts.Env(res.APIKeyEnv); key == "" {
			return nil, &Error{Kind: ErrConfig, Provider: res.Provider, Model: res.Model,
				Msg: res.APIKeyEnv + " is not set", Fix: "export it, or pick another provider"}
		}
		RememberSecret(key)
		if err := r.checkPlainHTTP(res); err != nil {
			return nil, err
		}
	}
	hc := cappedClient(r.opts.HTTPClient, r.opts.MaxResponseBytes, 0)
	ctx, cancel := context.WithTimeoutCause(ctx, r.opts.Timeout, errCallTimeout)
	defer cancel()
	var names []string
	if res.Kind == "anthropic" {
		opts := []anthropicopt.RequestOption{anthropicopt.WithoutEnvironmentDefaults(),
			anthropicopt.WithBaseURL(res.BaseURL + "/"), anthropicopt.WithHTTPClient(hc), anthropicopt.WithMaxRetries(0)}
		if key != "" {
			opts = append(opts, anthropicopt.WithAPIKey(key))
		}
		client := anthropic.NewClient(opts...)
		iter := client.Models.ListAutoPaging(ctx, anthropic.ModelListParams{})
		for iter.Next() {
			names = append(names, iter.Current().ID)
		}
		err = iter.Err()
	} else {
		opts := []option.RequestOption{option.WithBaseURL(res.BaseURL + "/"), option.WithHTTPClient(hc), option.WithMaxRetries(0)}
		if key != "" {
			opts = append(opts, option.WithAPIKey(key))
		}
		svc := openai.NewModelService(opts...)
		iter := svc.ListAutoPaging(ctx)
		for iter.Next() {
			names = append(names, iter.Current().ID)
		}
		err = iter.Err()
	}
	if err != nil {
		return nil, info.classify(ctx, err, false)
	}
	return names, nil
}

// KnownModel reports whether name is in a provider's list. Ollama lists
// "qwen2.5-coder:14b" but also answers to "qwen2.5-coder" as ":latest".
func KnownModel(list []string, name string) bool {
	for _, m := range list {
		if m == name || m == name+":latest" || fmt.Sprint("models/", name) == m {
			return true
		}
	}
	return false
}
