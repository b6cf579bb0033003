/**
 * A scripted stand-in for the OpenAI Responses API, as Codex calls it: POST /v1/responses with
 * SSE (response.created, response.output_item.added/.done, response.completed with usage). A
 * search step answers with a client-executed `tool_search_call`; a tool step with a
 * `function_call` in the namespace Codex gave the server's tools. Every function_call_output and
 * tool_search_output Codex sends back is recorded: that is exactly what the model reads.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { imageBlock, stepArgs, stepTool, type ForwardedResult, type ReadBlock, type RecordLine, type Step } from './model-script.js';
import { openEventStream, readBody, sendJson } from './sse.js';

const ID_PREFIX = 'call_step';

type Item = Record<string, any>;

interface ResponsesRequest {
  model?: string;
  tools?: Item[];
  input?: Item[];
}

function outputBlocks(output: unknown): ReadBlock[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  if (!Array.isArray(output)) return [{ type: 'other', json: JSON.stringify(output).slice(0, 2000) }];
  return output.map((part: Item): ReadBlock => {
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text };
    if (part.type === 'input_image' && typeof part.image_url === 'string') {
      const match = /^data:([^;]+);base64,(.*)$/s.exec(part.image_url);
      if (match) return imageBlock(match[1], match[2]);
    }
    return { type: 'other', json: JSON.stringify(part).slice(0, 2000) };
  });
}

/** The tools a tool_search_output exposes, in its order, each with the namespace holding it. */
function searchedTools(tools: unknown, namespace?: string): { namespace?: string; name: string }[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: Item) => (tool.type === 'namespace' ? searchedTools(tool.tools, tool.name) : tool.name ? [{ ...(namespace ? { namespace } : {}), name: String(tool.name) }] : []));
}

/** The namespace holding `name` among the tools of this request or of any search result so far. */
function namespaceOf(name: string, body: ResponsesRequest): string | undefined {
  const pools = [body.tools ?? [], ...(body.input ?? []).filter((i) => i.type === 'tool_search_output').map((i) => i.tools ?? [])];
  for (const pool of pools) {
    for (const tool of pool) {
      if (tool.type === 'namespace' && tool.name?.startsWith('mcp__') && (tool.tools ?? []).some((t: Item) => t.name === name)) return tool.name;
    }
  }
  return undefined;
}

export function responsesStandIn(script: Step[], record: (line: RecordLine) => void) {
  const recorded = new Set<string>();

  function readConversation(body: ResponsesRequest): number {
    let issued = 0;
    for (const item of body.input ?? []) {
      const callId = String(item.call_id ?? '');
      if (!callId.startsWith(ID_PREFIX)) continue;
      if (item.type === 'function_call' || item.type === 'tool_search_call') issued++;
      if ((item.type !== 'function_call_output' && item.type !== 'tool_search_output') || recorded.has(callId)) continue;
      recorded.add(callId);
      const step = Number(callId.slice(ID_PREFIX.length));
      const blocks: ReadBlock[] = item.type === 'tool_search_output' ? [{ type: 'tools', tools: searchedTools(item.tools) }] : outputBlocks(item.output);
      const result: ForwardedResult = { step, tool: stepTool(script[step]), args: stepArgs(script[step]), isError: undefined, blocks, raw: item };
      record({ kind: 'result', result });
    }
    return issued;
  }

  function itemFor(step: number, body: ResponsesRequest): Item {
    const next = script[step];
    const id = `${ID_PREFIX}${step}`;
    if (!next || 'say' in next) {
      const text = next && 'say' in next ? next.say : 'Done.';
      return { type: 'message', id: `msg_${step}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    }
    if ('search' in next) return { type: 'tool_search_call', id: `ts_${step}`, call_id: id, execution: 'client', status: 'completed', arguments: { query: next.search } };
    const namespace = namespaceOf(next.call, body) ?? 'mcp__python_session';
    return { type: 'function_call', id: `fc_${step}`, call_id: id, namespace, name: next.call, arguments: JSON.stringify(next.args), status: 'completed' };
  }

  let requests = 0;
  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const n = ++requests;
    if (request.method !== 'POST' || !url.startsWith('/v1/responses')) {
      record({ kind: 'request', method: request.method ?? '?', url, role: 'probe' });
      await readBody(request);
      return sendJson(response, url.startsWith('/v1/models') ? 200 : 404, url.startsWith('/v1/models') ? { object: 'list', data: [] } : { error: { message: 'not served by the stand-in' } });
    }
    const body = JSON.parse((await readBody(request)) || '{}') as ResponsesRequest;
    const step = readConversation(body);
    record({ kind: 'request', method: 'POST', url, role: 'main', step });
    const item = itemFor(step, body);
    const send = openEventStream(response);
    const id = `resp_${n}`;
    send('response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress', model: body.model, output: [] } });
    send('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } });
    send('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
    send('response.completed', { type: 'response.completed', response: { id, object: 'response', status: 'completed', model: body.model, output: [item], usage } });
    response.end();
  };
}
