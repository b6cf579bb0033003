/**
 * A scripted stand-in for the Anthropic Messages API, as Claude Code calls it: POST
 * /v1/messages?beta=true with stream: true, answered with the usual SSE events. The conversation
 * that lists Claude Code's own tools (Bash, Read, ...) follows the script; side requests (titles
 * and the like) get a short text. Every tool_result block the client sends back is recorded:
 * that is exactly what the model reads.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { imageBlock, stepArgs, stepTool, type ForwardedResult, type ReadBlock, type RecordLine, type Step } from './model-script.js';
import { openEventStream, readBody, sendJson } from './sse.js';

const ID_PREFIX = 'toolu_step';

interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages?: { role: string; content: string | Record<string, any>[] }[];
}

type Reply = { kind: 'text'; text: string } | { kind: 'tool'; id: string; name: string; input: Record<string, unknown> };

function readBlocks(content: unknown): ReadBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block: Record<string, any>): ReadBlock => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'image' && block.source?.type === 'base64') return imageBlock(block.source.media_type, block.source.data);
    if (block.type === 'tool_reference') return { type: 'tool_reference', name: block.tool_name };
    return { type: 'other', json: JSON.stringify(block).slice(0, 2000) };
  });
}

export function anthropicStandIn(script: Step[], record: (line: RecordLine) => void) {
  const recorded = new Set<string>();

  /** Records the tool results this request carries that were not seen before; returns the next step. */
  function readConversation(body: MessagesRequest): number {
    let issued = 0;
    for (const message of body.messages ?? []) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (message.role === 'assistant' && block.type === 'tool_use' && String(block.id).startsWith(ID_PREFIX)) issued++;
        if (message.role !== 'user' || block.type !== 'tool_result' || !String(block.tool_use_id).startsWith(ID_PREFIX)) continue;
        if (recorded.has(block.tool_use_id)) continue;
        recorded.add(block.tool_use_id);
        const step = Number(String(block.tool_use_id).slice(ID_PREFIX.length));
        const result: ForwardedResult = {
          step,
          tool: stepTool(script[step]),
          args: stepArgs(script[step]),
          isError: block.is_error,
          blocks: readBlocks(block.content),
          raw: block,
        };
        record({ kind: 'result', result });
      }
    }
    return issued;
  }

  function replyFor(step: number): Reply {
    const next = script[step];
    if (!next) return { kind: 'text', text: 'Done.' };
    if ('say' in next) return { kind: 'text', text: next.say };
    const id = `${ID_PREFIX}${step}`;
    if ('search' in next) return { kind: 'tool', id, name: 'ToolSearch', input: { query: next.search } };
    return { kind: 'tool', id, name: `mcp__python-session__${next.call}`, input: next.args };
  }

  function stream(response: ServerResponse, model: string, reply: Reply, n: number): void {
    const send = openEventStream(response);
    const usage = { input_tokens: 10, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    send('message_start', { type: 'message_start', message: { id: `msg_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } });
    if (reply.kind === 'text') {
      send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } });
    } else {
      send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: reply.id, name: reply.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) } });
    }
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', { type: 'message_delta', delta: { stop_reason: reply.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
    send('message_stop', { type: 'message_stop' });
    response.end();
  }

  function message(model: string, reply: Reply, n: number) {
    const content = reply.kind === 'text' ? [{ type: 'text', text: reply.text }] : [{ type: 'tool_use', id: reply.id, name: reply.name, input: reply.input }];
    return { id: `msg_${n}`, type: 'message', role: 'assistant', model, content, stop_reason: reply.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
  }

  let requests = 0;
  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const n = ++requests;
    if (request.method !== 'POST') {
      record({ kind: 'request', method: request.method ?? '?', url, role: 'probe' });
      return sendJson(response, 200, {});
    }
    const body = JSON.parse((await readBody(request)) || '{}') as MessagesRequest;
    if (url.startsWith('/v1/messages/count_tokens')) {
      record({ kind: 'request', method: 'POST', url, role: 'probe' });
      return sendJson(response, 200, { input_tokens: 10 });
    }
    const main = (body.tools ?? []).some((t) => t.name === 'Bash' || t.name === 'Read');
    const step = main ? readConversation(body) : undefined;
    const loaded = (body.tools ?? []).map((t) => t.name).filter((name) => name.startsWith('mcp__python-session__')).map((name) => name.slice('mcp__python-session__'.length));
    record({ kind: 'request', method: 'POST', url, role: main ? 'main' : 'side', step, ...(main ? { loaded } : {}) });
    const reply = step === undefined ? ({ kind: 'text', text: 'Python session test' } as Reply) : replyFor(step);
    const model = body.model ?? 'claude-stand-in';
    if (body.stream) return stream(response, model, reply, n);
    return sendJson(response, 200, message(model, reply, n));
  };
}
