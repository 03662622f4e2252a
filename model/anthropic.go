package model

import (
	"context"
	"encoding/json"
	"net/http"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// anthropicDefaultMaxTokens: the Messages API requires max_tokens; 8192
// fits a long plan or a multi-file edit and every current Claude model.
const anthropicDefaultMaxTokens = 8192

// anthropicBackend speaks the Messages API through the official SDK.
type anthropicBackend struct {
	client    anthropic.Client
	maxAnswer int64 // Options.MaxResponseBytes: text and tool arguments in all
}

func newAnthropicBackend(baseURL, key string, hc *http.Client, maxAnswer int64) *anthropicBackend {
	opts := []option.RequestOption{
		// Keys come from Options.Env only, never from the SDK's own autoload.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(baseURL + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // the Router retries
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &anthropicBackend{client: anthropic.NewClient(opts...), maxAnswer: maxAnswer}
}

func (b *anthropicBackend) params(req Request, model string) anthropic.MessageNewParams {
	p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: anthropicDefaultMaxTokens}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	// Anthropic wants user and assistant turns to alternate, with tool
	// results inside a user turn: merge neighbours of the same side.
	for _, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		role := anthropic.MessageParamRoleUser
		switch m.Role {
		case "assistant":
			role = anthropic.MessageParamRoleAssistant
			if m.Content != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Content))
			}
			for _, tc := range m.ToolCalls {
				var input any = map[string]any{}
				if json.Valid([]byte(tc.Arguments)) {
					input = json.RawMessage(tc.Arguments)
				}
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
		case "tool":
			blocks = append(blocks, anthropic.NewToolResultBlock(m.ToolCallID, m.Content, false))
		default:
			blocks = append(blocks, anthropic.NewTextBlock(m.Content))
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(p.Messages); n > 0 && p.Messages[n-1].Role == role {
			p.Messages[n-1].Content = append(p.Messages[n-1].Content, blocks...)
			continue
		}
		p.Messages = append(p.Messages, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, t := range req.Tools {
		schema := anthropic.ToolInputSchemaParam{ExtraFields: map[string]any{}}
		for k, v := range t.Parameters {
			switch k {
			case "type":
			case "properties":
				schema.Properties = v
			case "required":
				if list, ok := v.([]string); ok {
					schema.Required = list
				} else if list, ok := v.([]any); ok {
					for _, s := range list {
						if s, ok := s.(string); ok {
							schema.Required = append(schema.Required, s)
						}
					}
				}
			default:
				schema.ExtraFields[k] = v
			}
		}
		tp := &anthropic.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = anthropic.String(t.Description)
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfTool: tp})
	}
	return p
}

func (b *anthropicBackend) chat(ctx context.Context, req Request, model string, emit func(Delta)) (*Response, error) {
	p := b.params(req, model)
	if emit == nil {
		return b.whole(ctx, p)
	}
	stream := b.client.Messages.NewStreaming(ctx, p)
	defer stream.Close()

	resp := &Response{}
	var text []byte
	var calls []ToolCall
	toolOf := map[int64]int{} // content block index → tool call index
	args := newToolArgs(b.maxAnswer)
	stopped := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			resp.Usage.PromptTokens = int(ev.Message.Usage.InputTokens)
			resp.Usage.CompletionTokens = int(ev.Message.Usage.OutputTokens)
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				i := len(calls)
				toolOf[ev.Index] = i
				calls = append(calls, ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
				emit(Delta{ToolCall: &ToolCallDelta{Index: i, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					if err := args.charge(len(ev.Delta.Text)); err != nil {
						return nil, err
					}
					text = append(text, ev.Delta.Text...)
					emit(Delta{Text: ev.Delta.Text})
				}
			case "input_json_delta":
				if i, ok := toolOf[ev.Index]; ok && ev.Delta.PartialJSON != "" {
					if err := args.add(i, ev.Delta.PartialJSON); err != nil {
						return nil, err
					}
					emit(Delta{ToolCall: &ToolCallDelta{Index: i, Arguments: ev.Delta.PartialJSON}})
				}
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				resp.StopReason = string(ev.Delta.StopReason)
			}
			if ev.Usage.OutputTokens > 0 {
				resp.Usage.CompletionTokens = int(ev.Usage.OutputTokens)
			}
			if ev.Usage.InputTokens > 0 {
				resp.Usage.PromptTokens = int(ev.Usage.InputTokens)
			}
		case "message_stop":
			stopped = true
		}
	}
	return args.finish(resp, text, calls, stream.Err(), stopped)
}

func (b *anthropicBackend) whole(ctx context.Context, p anthropic.MessageNewParams) (*Response, error) {
	msg, err := b.client.Messages.New(ctx, p)
	if err != nil {
		return nil, err
	}
	resp := &Response{StopReason: string(msg.StopReason),
		Usage: Usage{PromptTokens: int(msg.Usage.InputTokens), CompletionTokens: int(msg.Usage.OutputTokens)}}
	for _, c := range msg.Content {
		switch c.Type {
		case "text":
			resp.Text += c.Text
		case "tool_use":
			args := string(c.Input)
			if args == "" {
				args = "{}"
			}
			resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Arguments: args})
		}
	}
	return resp, nil
}
