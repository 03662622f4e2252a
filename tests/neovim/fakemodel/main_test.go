package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// newFake serves a scripted fake and returns an openai-go client pointed at it,
// so these tests check the fake against the real SDK's decoding.
func newFake(t *testing.T, script ...reply) openai.Client {
	t.Helper()
	s := &server{script: script}
	srv := httptest.NewServer(s.handler())
	t.Cleanup(srv.Close)
	return openai.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
}

func streamAll(t *testing.T, c openai.Client) (openai.ChatCompletion, error) {
	t.Helper()
	stream := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:         "m",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	return acc.ChatCompletion, stream.Err()
}

func TestStreamsTextThenToolCallsInOrder(t *testing.T) {
	plan := "## Plan\n1. Rename `add` to `sum` — ünïcode survives chunking.\n## End Plan\n"
	args := `{"path":"calc.go","old_text":"func add(a, b int) int {","new_text":"func sum(a, b int) int {"}`
	c := newFake(t,
		reply{Text: plan},
		reply{ToolCalls: []toolCall{{Name: "edit_file", Arguments: args}, {Name: "delete_file", Arguments: `{"path":"old.go"}`}}},
	)

	first, err := streamAll(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := first.Choices[0].Message.Content; got != plan {
		t.Errorf("streamed text reassembled as %q, want %q", got, plan)
	}
	if first.Usage.PromptTokens == 0 || first.Usage.CompletionTokens == 0 {
		t.Errorf("no usage in the stream: %+v", first.Usage)
	}

	second, err := streamAll(t, c)
	if err != nil {
		t.Fatal(err)
	}
	tcs := second.Choices[0].Message.ToolCalls
	if len(tcs) != 2 {
		t.Fatalf("got %d tool calls, want 2: %+v", len(tcs), tcs)
	}
	if tcs[0].Function.Name != "edit_file" || tcs[0].Function.Arguments != args {
		t.Errorf("tool call 1 reassembled as %s(%s)", tcs[0].Function.Name, tcs[0].Function.Arguments)
	}
	if tcs[1].Function.Name != "delete_file" || tcs[0].ID == tcs[1].ID || tcs[1].ID == "" {
		t.Errorf("tool call 2: %+v (ids must be distinct and set)", tcs[1])
	}
	if fr := second.Choices[0].FinishReason; fr != "tool_calls" {
		t.Errorf("finish reason %q, want tool_calls", fr)
	}
}

func TestNonStreamingReply(t *testing.T) {
	c := newFake(t, reply{Text: "hello"})
	resp, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Message.Content != "hello" {
		t.Errorf("content %q", resp.Choices[0].Message.Content)
	}
}

func TestExhaustedScriptIsAVisibleError(t *testing.T) {
	c := newFake(t, reply{Text: "only one"})
	if _, err := streamAll(t, c); err != nil {
		t.Fatal(err)
	}
	_, err := streamAll(t, c)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || !strings.Contains(string(apiErr.DumpResponse(true)), "script exhausted") {
		t.Fatalf("want a 500 saying the script is exhausted, got %v", err)
	}
}

func TestExpectToolsMismatchIsRefused(t *testing.T) {
	yes := true
	c := newFake(t, reply{Text: "plan", ExpectTools: &yes})
	_, err := streamAll(t, c) // the request carries no tools
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("want 400 for a request without the expected tools, got %v", err)
	}
}

func TestChunksNeverSplitUTF8(t *testing.T) {
	s := strings.Repeat("é", 40) + "x" + strings.Repeat("日本", 20)
	var joined strings.Builder
	for _, c := range chunks(s) {
		if !utf8.ValidString(c) {
			t.Fatalf("chunk %q is not valid UTF-8", c)
		}
		if len(c) > chunkSize {
			t.Fatalf("chunk of %d bytes > %d", len(c), chunkSize)
		}
		joined.WriteString(c)
	}
	if joined.String() != s {
		t.Fatal("chunks do not join back to the input")
	}
}

// A stalled reply streams its text and then holds the stream open: the
// client sees the text arrive, and the stream ends only when the client
// cancels (what a user's cancel does to a model still streaming).
func TestStallHoldsTheStreamUntilTheClientCancels(t *testing.T) {
	c := newFake(t, reply{Text: "## Plan\n1. half a plan", Stall: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	var text strings.Builder
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			text.WriteString(ch.Delta.Content)
		}
		if text.String() == "## Plan\n1. half a plan" {
			cancel() // everything arrived; only the cancel ends the stream now
		}
	}
	if text.String() != "## Plan\n1. half a plan" {
		t.Errorf("streamed %q before the stall", text.String())
	}
	if err := stream.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("the stream ended with %v, want the client's cancel (no finish from the fake)", err)
	}
}
