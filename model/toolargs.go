package model

// toolArgs gathers the streamed arguments of a response's tool calls in
// linear time: one growing byte slice per call, where string += copied the
// whole prefix for every fragment (an 8 MiB answer of 90-byte fragments
// cost 28 s of CPU). It also keeps the answer's size: past max bytes of
// text and arguments in all it refuses more (errTooLarge), so a hostile
// stream cannot grow the answer without bound.
type toolArgs struct {
	bufs  [][]byte
	total int
	max   int
}

func newToolArgs(max int64) *toolArgs {
	if max <= 0 {
		max = DefaultMaxResponseBytes
	}
	return &toolArgs{max: int(max)}
}

// charge counts n bytes of the answer (text or arguments) against max:
// the answer the caller keeps is what Options.MaxResponseBytes caps, not
// the stream's envelopes around it (capTransport).
func (a *toolArgs) charge(n int) error {
	if a.total+n > a.max {
		return errTooLarge
	}
	a.total += n
	return nil
}

// add appends a fragment to call i's arguments.
func (a *toolArgs) add(i int, frag string) error {
	if err := a.charge(len(frag)); err != nil {
		return err
	}
	for len(a.bufs) <= i {
		a.bufs = append(a.bufs, nil)
	}
	a.bufs[i] = append(a.bufs[i], frag...)
	return nil
}

// get is call i's arguments so far.
func (a *toolArgs) get(i int) string {
	if i < len(a.bufs) {
		return string(a.bufs[i])
	}
	return ""
}

// maxToolNameBytes bounds a streamed tool name (ours are a dozen bytes).
const maxToolNameBytes = 256

// finish assembles a streamed answer once the stream is over: the one
// place where the text and tool calls gathered from either wire become the
// Response. A stream that failed is that error; one that ended without its
// final event (done false) is errTruncated, never half an answer taken for
// a whole one. A call with no name is dropped; a call with no streamed
// arguments gets "{}" (a tool with no input streams no deltas).
func (a *toolArgs) finish(resp *Response, text []byte, calls []ToolCall, streamErr error, done bool) (*Response, error) {
	if streamErr != nil {
		return nil, streamErr
	}
	if !done {
		return nil, errTruncated
	}
	resp.Text = string(text)
	for i, c := range calls {
		if c.Name == "" {
			continue
		}
		c.Arguments = a.get(i)
		if c.Arguments == "" {
			c.Arguments = "{}"
		}
		resp.ToolCalls = append(resp.ToolCalls, c)
	}
	return resp, nil
}
