// A scripted model on 127.0.0.1 speaking the OpenAI chat-completions wire
// (plain JSON, or SSE chunks with content deltas, tool-call deltas and a usage
// chunk), so aide-lsp's real OpenAI client is exercised end to end.
//
// Each POST /v1/chat/completions takes the next scripted reply:
//   {text?: string, toolCalls?: [{name, arguments}], expectTools?: boolean}
// A request past the script, or one whose tools do not match expectTools,
// gets an OpenAI-style error (so a wrong flow fails loudly, not silently).

import http from 'node:http';

/** Splits streamed text into small pieces, as real servers do. */
function pieces(text, size = 24) {
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

export async function startFakeModel(script) {
  const requests = [];
  let next = 0;
  const server = http.createServer((req, res) => {
    const fail = (status, message) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
    };
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'fake' }] }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return fail(404, `fake model: no route ${req.method} ${req.url}`);
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      let body;
      try {
        body = JSON.parse(raw);
      } catch (e) {
        return fail(400, `fake model: body is not JSON: ${e.message}`);
      }
      const n = next++;
      requests.push(body);
      const rep = script[n];
      if (!rep) return fail(500, `fake model: script exhausted: request ${n + 1}, ${script.length} replies scripted`);
      const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
      if (rep.expectTools !== undefined && rep.expectTools !== hasTools) {
        return fail(400, `fake model: request ${n + 1}: expected tools=${rep.expectTools}, got ${hasTools ? body.tools.length : 0}`);
      }
      const id = `chatcmpl-fake-${n + 1}`;
      const model = body.model || 'm';
      const toolCalls = (rep.toolCalls ?? []).map((tc, i) => ({ id: tc.id ?? `call_${n + 1}_${i + 1}`, ...tc }));
      const text = rep.text ?? '';
      const completion = Math.ceil((text.length + toolCalls.reduce((a, t) => a + t.arguments.length, 0)) / 4);
      const usage = { prompt_tokens: Math.ceil(raw.length / 4), completion_tokens: completion, total_tokens: Math.ceil(raw.length / 4) + completion };
      const finish = toolCalls.length ? 'tool_calls' : 'stop';
      const created = Math.floor(Date.now() / 1000);
      if (!body.stream) {
        const message = { role: 'assistant', content: text };
        if (toolCalls.length) message.tool_calls = toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (choices, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
      const delta = (d) => [{ index: 0, delta: d, finish_reason: null }];
      send(delta({ role: 'assistant', content: '' }));
      for (const p of pieces(text)) send(delta({ content: p }));
      toolCalls.forEach((t, i) => {
        send(delta({ tool_calls: [{ index: i, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }));
        for (const p of pieces(t.arguments)) send(delta({ tool_calls: [{ index: i, function: { arguments: p } }] }));
      });
      send([{ index: 0, delta: {}, finish_reason: finish }]);
      if (body.stream_options?.include_usage) send([], { usage });
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
