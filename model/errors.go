package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
)

// ErrorKind classifies a failed call, for callers that react differently
// (commands/ stops on Auth and Config, shows Cancelled quietly, ...).
type ErrorKind string

const (
	ErrConfig      ErrorKind = "config"       // bad model id, unknown provider, missing key
	ErrUnreachable ErrorKind = "unreachable"  // nothing listens at the address, DNS fails
	ErrAuth        ErrorKind = "auth"         // 401 / 403
	ErrBadRequest  ErrorKind = "bad_request"  // 400 / 404 / 422: the request or model name is wrong
	ErrRateLimited ErrorKind = "rate_limited" // 429 after every retry
	ErrServer      ErrorKind = "server"       // 5xx after every retry
	ErrReset       ErrorKind = "reset"        // connection reset / stream cut short
	ErrTimeout     ErrorKind = "timeout"      // Options.Timeout passed
	ErrStalled     ErrorKind = "stalled"      // no byte for Options.StallTimeout
	ErrCancelled   ErrorKind = "cancelled"    // the caller's context was cancelled
	ErrTooLarge    ErrorKind = "too_large"    // over Options.MaxResponseBytes
	ErrBadResponse ErrorKind = "bad_response" // not valid JSON / not the API's shape
)

// Error is every error Router.Chat returns. Its text names the provider,
// the model and the fix:
//
//	ollama: nothing answers at http://127.0.0.1:11434 (model qwen2.5-coder:14b): start it with `ollama serve` ...
type Error struct {
	Kind     ErrorKind
	Provider string // provider name, e.g. "ollama"
	Model    string // the model as sent to the API (the rest of the id)
	Status   int    // HTTP status, when there was one
	Attempts int    // how many HTTP attempts were made
	Msg      string // what happened
	Fix      string // what the user should do
	Err      error  // the underlying error, if any

	retryAfter time.Duration // from the Retry-After header
	retryable  bool
}

// Error is the one-line message; secrets in it are redacted (Redact).
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " after %d attempts", e.Attempts)
	}
	if e.Model != "" {
		fmt.Fprintf(&b, " (model %s)", e.Model)
	}
	if e.Fix != "" {
		b.WriteString(": ")
		b.WriteString(e.Fix)
	}
	return Redact(b.String())
}

// Unwrap gives errors.Is access to context.Canceled and the like.
func (e *Error) Unwrap() error { return e.Err }

// errTooLarge is what the capped body reader returns past the limit.
var errTooLarge = errors.New("response over the size limit")

// errCallTimeout is the cause of the per-call timeout context.
var errCallTimeout = errors.New("model call timed out")

// errStalled is what the watchdog makes the body reader return.
var errStalled = errors.New("response stalled")

// errTruncated: the stream ended without its final event.
var errTruncated = errors.New("stream ended before its final event")

// callInfo is what an error message needs to name and fix things.
type callInfo struct {
	provider string
	kind     string // "openai" / "anthropic"
	model    string
	baseURL  string
	keyEnv   string
	role     Role
	timeout  time.Duration
	maxBytes int64
	stall    time.Duration
}

// modelSetting is the configuration key a user changes to pick another model.
func (c callInfo) modelSetting() string {
	if c.role == RoleEditor {
		return "editorModel"
	}
	return "architectModel"
}

// classify turns whatever an attempt returned into an *Error; delivered
// says whether deltas already reached the caller (then nothing is retried:
// the caller would see the text twice).
func (c callInfo) classify(ctx context.Context, err error, delivered bool) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	e = &Error{Provider: c.provider, Model: c.model, Err: err}
	switch {
	case errors.Is(err, errTooLarge):
		e.Kind, e.Msg = ErrTooLarge, fmt.Sprintf("the response is over %d bytes and was cut", c.maxBytes)
		e.Fix = "ask for a smaller change, or raise the limit (model.Options.MaxResponseBytes)"
		return e
	case errors.Is(err, errStalled):
		e.Kind, e.Msg = ErrStalled, fmt.Sprintf("the server sent nothing for %s and the stream was dropped", c.stall)
		e.Fix = "retry; if it keeps happening check the server at " + hostOf(c.baseURL) + fmt.Sprintf(", or set %s to another model", c.modelSetting())
		e.retryable = !delivered
		return e
	case context.Cause(ctx) == errCallTimeout:
		e.Kind, e.Msg = ErrTimeout, fmt.Sprintf("no complete answer within %s", c.timeout)
		e.Fix = fmt.Sprintf("raise requestTimeoutSeconds, or set %s to a faster model", c.modelSetting())
		e.Err = errors.Join(context.DeadlineExceeded, err)
		return e
	case ctx.Err() != nil:
		e.Kind, e.Msg = ErrCancelled, "the call was cancelled"
		e.Fix = "nothing to fix; run the command again to retry"
		e.Err = errors.Join(ctx.Err(), err)
		return e
	}

	var oaiErr *openai.Error
	var antErr *anthropic.Error
	status, header, body := 0, http.Header(nil), ""
	if errors.As(err, &oaiErr) {
		status, body = oaiErr.StatusCode, oaiErr.RawJSON()
		if oaiErr.Response != nil {
			header = oaiErr.Response.Header
		}
		if oaiErr.Message != "" {
			body = oaiErr.Message
		}
	} else if errors.As(err, &antErr) {
		status, body = antErr.StatusCode, antErr.RawJSON()
		if antErr.Response != nil {
			header = antErr.Response.Header
		}
	}
	if status != 0 {
		return c.classifyStatus(e, status, header, apiMessage(body))
	}

	var dnsErr *net.DNSError
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dnsErr), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		e.Kind, e.Msg = ErrUnreachable, "nothing answers at "+hostOf(c.baseURL)
		if c.provider == "ollama" {
			e.Fix = fmt.Sprintf("start it with `ollama serve` and `ollama pull %s`, or set %s to another provider", c.model, c.modelSetting())
		} else {
			e.Fix = fmt.Sprintf("start the server or correct baseURL of provider %q, or set %s to another provider", c.provider, c.modelSetting())
		}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE),
		errors.Is(err, errTruncated), strings.Contains(err.Error(), "connection reset"), errors.Is(err, io.EOF):
		e.Kind, e.Msg = ErrReset, "the connection was cut before the answer was complete"
		e.Fix = "retry; if it keeps happening check the server or proxy at " + hostOf(c.baseURL)
		e.retryable = !delivered
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr), strings.Contains(err.Error(), "invalid character"),
		strings.Contains(err.Error(), "unexpected end of JSON"):
		e.Kind, e.Msg = ErrBadResponse, "the server's answer is not valid JSON"
		e.Fix = fmt.Sprintf("check that baseURL %s points at an %s-compatible API", c.baseURL, kindTitle(c.kind))
	default:
		e.Kind, e.Msg = ErrBadResponse, "the call failed: "+oneLine(err.Error())
		e.Fix = fmt.Sprintf("check that baseURL %s points at an %s-compatible API", c.baseURL, kindTitle(c.kind))
	}
	return e
}

func (c callInfo) classifyStatus(e *Error, status int, header http.Header, msg string) *Error {
	e.Status = status
	detail := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if msg != "" {
		detail += ": " + oneLine(msg)
	}
	switch {
	case status == 401 || status == 403:
		e.Kind = ErrAuth
		e.Msg = "the server refused the credentials (" + detail + ")"
		if c.keyEnv != "" {
			e.Fix = fmt.Sprintf("check the key in %s, or set %s to another provider", c.keyEnv, c.modelSetting())
		} else {
			e.Fix = fmt.Sprintf("this server wants a key: set apiKeyEnv of provider %q to the environment variable that holds it", c.provider)
		}
	case status == 429:
		e.Kind, e.Msg, e.retryable = ErrRateLimited, "rate limited ("+detail+")", true
		e.retryAfter = parseRetryAfter(header.Get("Retry-After"))
		e.Fix = fmt.Sprintf("wait a minute and run it again, or set %s to another model", c.modelSetting())
	case status >= 500:
		e.Kind, e.Msg, e.retryable = ErrServer, "server error ("+detail+")", true
		e.retryAfter = parseRetryAfter(header.Get("Retry-After"))
		e.Fix = fmt.Sprintf("the provider is failing; try again later or set %s to another provider", c.modelSetting())
	case status == 404 && c.provider == "ollama":
		e.Kind, e.Msg = ErrBadRequest, "model not found ("+detail+")"
		e.Fix = fmt.Sprintf("run `ollama pull %s`, or set %s to a model you have (`ollama list`)", c.model, c.modelSetting())
	case status == 404:
		e.Kind, e.Msg = ErrBadRequest, "not found ("+detail+")"
		e.Fix = fmt.Sprintf("check the model name and baseURL %s of provider %q", c.baseURL, c.provider)
	case status == 408:
		e.Kind, e.Msg, e.retryable = ErrServer, "the server timed out ("+detail+")", true
		e.Fix = "try again later"
	default:
		e.Kind, e.Msg = ErrBadRequest, "the server rejected the request ("+detail+")"
		e.Fix = fmt.Sprintf("check the model name, or set %s to another model", c.modelSetting())
	}
	return e
}

// apiMessage pulls error.message (OpenAI, Anthropic) out of an error body.
func apiMessage(body string) string {
	var v struct {
		Message string `json:"message"`
		Error   struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(body), &v) == nil {
		if v.Error.Message != "" {
			return v.Error.Message
		}
		if v.Message != "" {
			return v.Message
		}
	}
	if len(body) > 200 {
		body = body[:200] + "…"
	}
	return body
}

// parseRetryAfter reads delta-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// hostOf is scheme://host of a base URL, without its path nor any
// user:pass@ it carries.
func hostOf(base string) string {
	if i := strings.Index(base, "://"); i >= 0 {
		rest := base[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			rest = rest[:j]
		}
		if j := strings.LastIndexByte(rest, '@'); j >= 0 {
			rest = rest[j+1:]
		}
		return base[:i+3] + rest
	}
	return base
}

func kindTitle(kind string) string {
	if kind == "anthropic" {
		return "Anthropic"
	}
	return "OpenAI"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
