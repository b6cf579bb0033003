/**
 * The form a question the code asks (input(), getpass) is shown in, in a client that declares form
 * elicitation: its words and its one field, the person's reply read back from the client's
 * result, and the input-required result a 2026-07-28 call ends with (the MCP transport gives it
 * its wire shape; mcp/person-forms.ts says which route a client takes).
 */
import type { QuestionReply, QuestionView } from '../sessions/question.js';

/** Where an input-required result travels from a tool to the transport, which gives it its wire shape. */
export const INPUT_REQUIRED_KEY = 'python-session/input-required';

/** The key of our one input request, and of the answer in the form's content and in a retry's `inputResponses`. */
export const ANSWER_KEY = 'answer';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

interface AnswerSchema {
  type: 'object';
  properties: Record<string, { type: 'string'; title: string; description: string }>;
  required: string[];
}

/** The form's words and its one field. */
export function questionForm(view: QuestionView, session: string): { message: string; requestedSchema: AnswerSchema } {
  const prompt = view.prompt.trim();
  const secret = view.password ? ' Your answer goes to the code only: not to the model, not to the session log.' : '';
  return {
    message: `The Python code in session "${session}" (run ${view.run}) asks${prompt ? `: ${prompt}` : ' for a line of input.'}${secret} Declining stops it with KeyboardInterrupt.`,
    requestedSchema: {
      type: 'object',
      properties: { [ANSWER_KEY]: { type: 'string', title: prompt || 'Answer', description: view.password ? 'A password (getpass)' : 'The line the code reads' } },
      required: [ANSWER_KEY],
    },
  };
}

/** The person's reply from an elicitation result; undefined when it is not one. */
export function replyOf(result: unknown): QuestionReply | undefined {
  if (!isRecord(result)) return undefined;
  if (result.action === 'decline' || result.action === 'cancel') return { action: 'decline' };
  if (result.action !== 'accept') return undefined;
  const answer = isRecord(result.content) ? result.content[ANSWER_KEY] : undefined;
  return { action: 'accept', value: answer === undefined || answer === null ? '' : String(answer) };
}

/** An input-required result for `view`, in the shape a tool returns (the transport unwraps it). */
export function inputRequiredResult(view: QuestionView, session: string, requestState: string): { content: []; _meta: Record<string, unknown> } {
  const inputRequests = { [ANSWER_KEY]: { method: 'elicitation/create', params: { mode: 'form', ...questionForm(view, session) } } };
  return { content: [], _meta: { [INPUT_REQUIRED_KEY]: { inputRequests, requestState } } };
}
