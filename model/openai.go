package model

import (
	"context"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openaiBackend speaks chat completions through the official SDK, for
// OpenAI and every OpenAI-compatible server (Ollama, llama.cpp, vLLM, ...).
type openaiBackend struct {
	svc       openai.ChatCompletionService
	maxAnswer int64 // Options.MaxResponseBytes: text and tool arguments in all
	// completionTokensField: api.openai.com wants max_completion_tokens
	// (max_tokens is refused by its reasoning models); compatible servers
	// mostly know only max_tokens.
	completionTokensField bool
}

func newOpenAIBackend(baseURL, key string, hc *http.Client, official bool, maxAnswer int64) *openaiBackend {
	// The service is built directly, not through openai.NewClient, so no
	// OPENAI_* variable of the process leaks into a call to another server
	// (a local Ollama must never receive the OpenAI key).
	opts := []option.RequestOption{
		option.WithBaseURL(baseURL + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the Router retries, with its own rules
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &openaiBackend{svc: openai.NewChatCompletionService(opts...), completionTokensField: official, maxAnswer: maxAnswer}
}

func (b *openaiBackend) params(req Request, model string) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "assistant":
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					}})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case "tool":
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		case "system":
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	// No tools: the field stays absent (omitzero), as the architect requires.
	for _, t := range req.Tools {
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	if req.MaxTokens > 0 {
		if b.completionTokensField {
			p.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	return p
}

func (b *openaiBackend) chat(ctx context.Context, req Request, model string, emit func(Delta)) (*Response, error) {
	p := b.params(req, model)
	if emit == nil {
		return b.whole(ctx, p)
	}
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	stream := b.svc.NewStreaming(ctx, p)
	// Close drops the HTTP body: on cancel or error the connection goes at once.
	defer stream.Close()

	resp := &Response{}
	var text []byte
	var calls []ToolCall
	args := newToolArgs(b.maxAnswer)
	finished := false
	for stream.Next() {
		chunk := stream.Current()
		if u := chunk.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
			resp.Usage = Usage{PromptTokens: int(u.PromptTokens), CompletionTokens: int(u.CompletionTokens)}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if c := ch.Delta.Content; c != "" {
				if err := args.charge(len(c)); err != nil {
					return nil, err
				}
				text = append(text, c...)
				emit(Delta{Text: c})
			}
			for _, tc := range ch.Delta.ToolCalls {
				i := int(tc.Index)
				if i < 0 || i > 1024 {
					continue // hostile index: ignore rather than allocate
				}
				for len(calls) <= i {
					calls = append(calls, ToolCall{})
				}
				if tc.ID != "" {
					calls[i].ID = tc.ID
				}
				if tc.Function.Name != "" && len(calls[i].Name) < maxToolNameBytes {
					calls[i].Name += tc.Function.Name // bounded: no name grows past the cap
				}
				if err := args.add(i, tc.Function.Arguments); err != nil {
					return nil, err
				}
				emit(Delta{ToolCall: &ToolCallDelta{Index: i, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			}
			if ch.FinishReason != "" {
				resp.StopReason = ch.FinishReason
				finished = true
			}
		}
	}
	return args.finish(resp, text, calls, stream.Err(), finished)
}

func (b *openaiBackend) whole(ctx context.Context, p openai.ChatCompletionNewParams) (*Response, error) {
	cc, err := b.svc.New(ctx, p)
	if err != nil {
		return nil, err
	}
	resp := &Response{Usage: Usage{PromptTokens: int(cc.Usage.PromptTokens), CompletionTokens: int(cc.Usage.CompletionTokens)}}
	if len(cc.Choices) == 0 {
		return nil, errTruncated
	}
	ch := cc.Choices[0]
	resp.Text = ch.Message.Content
	resp.StopReason = ch.FinishReason
	for _, tc := range ch.Message.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return resp, nil
}
