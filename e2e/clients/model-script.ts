/**
 * What a scripted stand-in model says, and what it records of the client's answers. Both stand-ins
 * (Anthropic Messages, OpenAI Responses) follow the same script and write the same record, so a
 * test can assert what the model reads the same way whatever the client.
 */

/** One turn of the model: call a tool, search the client's deferred tools, or say a final text. */
export type Step =
  | { call: string; args: Record<string, unknown> }
  | { search: string }
  | { say: string };

/** A block of a tool result as the model receives it, with the image bytes decoded. */
export type ReadBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; mimeType: string; bytes: number; png: boolean }
  /** Claude Code's ToolSearch answers with references the API expands into tool definitions. */
  | { type: 'tool_reference'; name: string }
  /** Codex's tool_search answers with tool definitions, MCP tools inside a namespace per server. */
  | { type: 'tools'; tools: { namespace?: string; name: string }[] }
  | { type: 'other'; json: string };

/** One tool result the client forwarded to the model, matched to the step that asked for it. */
export interface ForwardedResult {
  step: number;
  /** The step's tool (or "search" for a tool search). */
  tool: string;
  args: Record<string, unknown>;
  /** The error flag the model is shown (Claude's tool_result is_error; Codex has none: undefined). */
  isError: boolean | undefined;
  blocks: ReadBlock[];
  /** The result exactly as the client sent it, for failure messages. */
  raw: unknown;
}

/**
 * What the recording file holds, one JSON object per line, in the order things happened; `at` is
 * milliseconds since the session started (for reading a slow run, never for assertions).
 */
export type RecordLine = (
  /** `loaded`: this server's tools the client put in the request itself, not behind its search. */
  | { kind: 'request'; method: string; url: string; role: 'main' | 'side' | 'probe'; step?: number; loaded?: string[] }
  | { kind: 'result'; result: ForwardedResult }
  | { kind: 'client-start' }
  | { kind: 'client-exit'; code: number | null; signal: string | null; timedOut: boolean }
  | { kind: 'note'; text: string }
) & { at?: number };

export function stepTool(step: Step): string {
  return 'call' in step ? step.call : 'search' in step ? 'search' : 'say';
}

export function stepArgs(step: Step): Record<string, unknown> {
  return 'call' in step ? step.args : 'search' in step ? { query: step.search } : {};
}

/** The text the model reads from a result: its text blocks joined, as a model sees them in a row. */
export function readText(result: ForwardedResult): string {
  return result.blocks
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

export function readImages(result: ForwardedResult) {
  return result.blocks.filter((b): b is Extract<ReadBlock, { type: 'image' }> => b.type === 'image');
}

/** Decodes a base64 image into what tests check: its size and whether it is a PNG. */
export function imageBlock(mimeType: string, base64: string): ReadBlock {
  const bytes = Buffer.from(base64, 'base64');
  return { type: 'image', mimeType, bytes: bytes.length, png: bytes.subarray(1, 4).toString('latin1') === 'PNG' };
}
