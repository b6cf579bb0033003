/**
 * Which route a question the code asks (input(), getpass) takes to the person through the calling
 * client, where the client declares form elicitation:
 *
 * - the handshake revisions: an `elicitation/create` request inside the call, answered while the
 *   call waits;
 * - 2026-07-28: the call ends with an input-required result (multi round-trip requests); the
 *   client shows the form and calls the tool again with the answer in `inputResponses` and our
 *   `requestState` echoed. The retry never runs the code again: it answers the question and
 *   waits for the run (tools/runs.ts).
 *
 * Clients without form elicitation get no route here; their questions go to the panel.
 */
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ANSWER_KEY, questionForm, replyOf } from '../tools/person-form.js';
import type { FormRetry, FormRoute } from '../tools/tool-context.js';
import { declaredVersion, META_CLIENT_CAPABILITIES, STATELESS_REVISION } from './revisions.js';

export { INPUT_REQUIRED_KEY } from '../tools/person-form.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How long a form may stay on screen in a call before the request is given up (the question stays open). */
const FORM_TIMEOUT_MS = 60 * 60_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether capabilities declare form elicitation (an empty `elicitation` object means form, from before modes). */
export function declaresForms(capabilities: unknown): boolean {
  if (!isRecord(capabilities) || !isRecord(capabilities.elicitation)) return false;
  const elicitation = capabilities.elicitation;
  return isRecord(elicitation.form) || !isRecord(elicitation.url);
}

/**
 * How this call's client can show the person a form, or undefined when it cannot.
 * `handshakeCapabilities`: what the client declared at `initialize` (2025 revisions).
 */
export function formRoute(extra: Extra, handshakeCapabilities: unknown, session: string): FormRoute | undefined {
  if (declaredVersion(extra._meta ? { _meta: extra._meta } : undefined) === STATELESS_REVISION) {
    return declaresForms(extra._meta?.[META_CLIENT_CAPABILITIES]) ? { kind: 'input-required' } : undefined;
  }
  if (!declaresForms(handshakeCapabilities)) return undefined;
  return {
    kind: 'request',
    async ask(view, signal) {
      try {
        const result = await extra.sendRequest({ method: 'elicitation/create', params: questionForm(view, session) }, ElicitResultSchema, { signal, timeout: FORM_TIMEOUT_MS });
        return replyOf(result);
      } catch {
        return undefined; // the client could not show it, or the question closed first
      }
    },
  };
}

/** What a retry carries: our state echoed and the person's reply (undefined where it has none). */
export function retryOf(params: unknown): FormRetry | undefined {
  if (!isRecord(params) || typeof params.requestState !== 'string') return undefined;
  const responses = isRecord(params.inputResponses) ? params.inputResponses : {};
  return { requestState: params.requestState, reply: replyOf(responses[ANSWER_KEY]) };
}
