/**
 * run_python, execute_code and wait_for_run: a call waits for its run up to wait_s, then comes
 * back with what the run printed so far while the run goes on in the daemon (clients give up on a
 * call after a minute or so, whatever the server does). Any later call, from any client, picks the
 * run up by id.
 */
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { formatDuration } from '../format.js';
import type { ExecutionResult, Output } from '../kernel/execution/outputs.js';
import { runContent } from './run-content.js';
import { IMAGE_TYPES, type SavedFigure } from '../sessions/figure-store.js';
import type { RunHandle } from '../sessions/run-handle.js';
import { runStatus, type RunOutcome, type Session } from '../sessions/session.js';
import { DEFAULT_SESSION } from '../sessions/session-manager.js';
import { firstLine, kernelNextCall, toolErrorText } from './error-words.js';
import { contentResult, errorResult, sessionFor, textResult, type Content, type FormRetry, type ToolContext, type ToolResult } from './tool-context.js';
import type { Question } from '../sessions/question.js';
import { inputRequiredResult } from './person-form.js';

export { firstLine } from './error-words.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const PROGRESS_EVERY_MS = 3000;
/** A wait in the queue shorter than this is not news to the caller. */
const QUEUE_NEWS_MS = 1000;

/** Sends progress (the run's elapsed seconds and its latest output) while this call waits. */
function progressReporter(extra: Extra, handle: RunHandle<unknown>) {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let latest = '';
  const onOutput = (output: Output) => {
    if (output.type === 'stream') latest = (latest + output.text).slice(-2000);
  };
  handle.on('output', onOutput);
  const timer = setInterval(() => {
    const elapsed = Math.round(handle.runningMs() / 1000);
    const tail = latest.trim().split('\n').slice(-3).join('\n').slice(-300);
    const message = handle.state === 'queued' ? `Waiting behind run ${handle.queuedBehind?.id ?? 'another run'}` : `Running for ${elapsed} s${tail ? `; latest output:\n${tail}` : ''}`;
    void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: elapsed, message } }).catch(() => undefined);
  }, PROGRESS_EVERY_MS);
  return () => {
    clearInterval(timer);
    handle.off('output', onOutput);
  };
}

export async function runPython(context: ToolContext, args: { code: string; timeout_s?: number; wait_s?: number; session?: string }, extra: Extra): Promise<ToolResult> {
  // A retry after an input-required result answers the question; the code is not run again.
  const retry = context.formRetry(extra);
  if (retry) return answerRetry(context, retry, args.wait_s ?? context.settings.waitS(), extra);
  const session = await sessionFor(context, args.session ?? DEFAULT_SESSION);
  const handle = session.submit({
    code: args.code,
    client: context.clientName(),
    timeoutS: args.timeout_s ?? context.settings.timeoutS(),
    outputLimit: context.settings.outputLimit(),
  });
  return waitAndAnswer(context, session.name, handle, args.wait_s ?? context.settings.waitS(), extra, { stopOnCancel: true });
}

export async function waitForRun(context: ToolContext, args: { run?: string; wait_s?: number; session?: string }, extra: Extra): Promise<ToolResult> {
  const retry = context.formRetry(extra);
  if (retry) return answerRetry(context, retry, args.wait_s ?? context.settings.waitS(), extra);
  const found = findRun(context, args.run, args.session);
  if (typeof found === 'string') return errorResult(found);
  // Only looks: a client that gives up on this call does not stop the run.
  return waitAndAnswer(context, found.session, found, args.wait_s ?? context.settings.waitS(), extra, { stopOnCancel: false });
}

/** How long a question handed out in an input-required result waits for the client's retry. */
const RETRY_HOLD_MS = 15 * 60_000;

/** The state an input-required result carries: which question, of which run, in which session. */
function requestStateOf(session: string, handle: RunHandle<unknown>, question: Question): string {
  return Buffer.from(JSON.stringify({ session, run: handle.id, question: question.id }), 'utf8').toString('base64url');
}

function parseRequestState(state: string): { session: string; run: string; question: string } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(state, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof parsed.session === 'string' && typeof parsed.run === 'string' && typeof parsed.question === 'string') return parsed as never;
  } catch {
    // not ours: answered below
  }
  return undefined;
}

/** The retry of a call that ended input-required: the reply goes to its question, then the call waits for the run. */
async function answerRetry(context: ToolContext, retry: FormRetry, waitS: number, extra: Extra): Promise<ToolResult> {
  const state = parseRequestState(retry.requestState);
  if (!state) return errorResult('This call carries a requestState this server did not give; nothing was run. Call the tool again without it.');
  const handle = context.sessions.find(state.session)?.runs.get(state.run);
  if (!handle) return errorResult(`Run ${state.run}, whose question this answers, is no longer known (the daemon may have restarted); nothing was run again. Call run_python again if the work is still needed.`);
  const question = handle.question;
  const notes: string[] = [];
  if (question?.id === state.question && retry.reply) question.reply(retry.reply, context.clientName());
  else if (handle.state !== 'done') notes.push('(The question this answer was for had already closed: answered in the panel, or the code stopped waiting.)');
  held.get(state.question)?.();
  const result = await waitAndAnswer(context, state.session, handle, waitS, extra, { stopOnCancel: true });
  return notes.length ? { ...result, content: [{ type: 'text', text: `${notes.join('\n')}\n` }, ...result.content] } : result;
}

/** Holds on questions handed out in input-required results, let go by their retry (or after RETRY_HOLD_MS). */
const held = new Map<string, () => void>();

function holdForRetry(question: Question): void {
  const release = question.hold();
  const timer = setTimeout(() => letGo(), RETRY_HOLD_MS).unref();
  const letGo = () => {
    clearTimeout(timer);
    held.delete(question.id);
    release();
  };
  held.set(question.id, letGo);
  question.once('closed', letGo);
}

/**
 * Waits up to waitS for the run; with stopOnCancel, a caller that gives up inside its wait stops
 * the run. A question the run's code asks goes to this client's form where it has one: inside the
 * call (the wait stops counting while the form is on screen), or as an input-required result.
 */
async function waitAndAnswer(context: ToolContext, sessionName: string, handle: RunHandle<unknown>, waitS: number, extra: Extra, options: { stopOnCancel: boolean }): Promise<ToolResult> {
  const untie = handle.tieTo(options.stopOnCancel ? extra.signal : undefined);
  const stopProgress = progressReporter(extra, handle);
  const route = handle.kind === 'code' ? context.formRoute(extra, sessionName) : undefined;
  const shown = new Set<string>();
  try {
    let deadline = Date.now() + waitS * 1000;
    for (;;) {
      const question = handle.question;
      if (question?.isOpen && route && !shown.has(question.id)) {
        shown.add(question.id);
        if (route.kind === 'input-required') {
          holdForRetry(question);
          return inputRequiredResult(question.view(), sessionName, requestStateOf(sessionName, handle, question));
        }
        const began = Date.now();
        const release = question.hold();
        const closed = new AbortController();
        const close = () => closed.abort();
        question.once('closed', close);
        extra.signal.addEventListener('abort', close, { once: true });
        try {
          const reply = await route.ask(question.view(), closed.signal);
          if (reply) question.reply(reply, context.clientName());
        } finally {
          question.off('closed', close);
          extra.signal.removeEventListener('abort', close);
          release();
        }
        deadline += Date.now() - began;
        continue;
      }
      const next = await nextOf(handle, deadline - Date.now());
      if (next === 'waited') return stillGoingResult(handle);
      if (next === 'question') continue;
      const outcome = handle.outcome ?? (await handle.done);
      // A helper call (named by a busy answer) has no result of its own to give: its caller had it.
      if (handle.kind === 'helper') return textResult(`Run ${handle.id} (${firstLine(handle.code)}) has ended; the kernel is free for the next call.`, { run: handle.id, status: 'done' });
      return outcomeResult(outcome as RunOutcome, handle);
    }
  } catch (error) {
    return errorResult(`Run ${handle.id} did not run: ${toolErrorText(error)}`, { run: handle.id, status: 'not run' });
  } finally {
    untie();
    stopProgress();
  }
}

/** What comes first: the run's end, a question its code asks, or the end of this call's wait. */
function nextOf(handle: RunHandle<unknown>, ms: number): Promise<'ended' | 'question' | 'waited'> {
  if (handle.outcome !== undefined || handle.failure) return Promise.resolve('ended');
  return new Promise((resolve, reject) => {
    const onQuestion = (question: unknown) => question && finish('question');
    const timer = setTimeout(() => finish('waited'), Math.max(0, ms));
    const finish = (what: 'ended' | 'question' | 'waited') => {
      clearTimeout(timer);
      handle.off('question', onQuestion);
      resolve(what);
    };
    handle.on('question', onQuestion);
    handle.done.then(() => finish('ended'), (error: Error) => {
      clearTimeout(timer);
      handle.off('question', onQuestion);
      reject(error);
    });
  });
}

/** The run's whole result, in run_python's format, whoever asks and however often. */
export function outcomeResult(outcome: RunOutcome, handle: RunHandle<unknown>): ToolResult {
  const before: Content[] = [];
  const queued = queuedNote(handle);
  if (queued) before.push({ type: 'text', text: `${queued}\n` });
  // Said before the output: the kernel that held this client's variables died since its last call.
  if (outcome.diedBefore) {
    const times = outcome.diedBefore.times > 1 ? ` (${outcome.diedBefore.times} times; the last time is described here)` : '';
    before.push({ type: 'text', text: `Note: this session's kernel died since your previous call${times}, so this call ran in a fresh one.\n${outcome.diedBefore.error.message}\n\n` });
  }
  const warnings: Content[] = outcome.warnings.map((text) => ({ type: 'text', text: `\n${text}` }));
  const noted = {
    run: handle.id,
    ...(outcome.diedBefore ? { died_before: { lost_names: outcome.diedBefore.error.lostNames } } : {}),
    ...(outcome.warnings.length ? { warnings: outcome.warnings } : {}),
  };
  if (outcome.kind === 'died') {
    // The kernel's account names no tool; what to call next is said here.
    const nextCall = kernelNextCall(outcome.error.next);
    const died = errorResult(outcome.error.message + nextCall, { status: 'died', lost_names: outcome.error.lostNames, restarted: outcome.error.restarted, ...noted });
    return { ...died, content: [...before, ...died.content, ...warnings] };
  }
  const { result, figures } = outcome;
  const facts = {
    status: runStatus(result),
    execution_count: result.executionCount,
    duration_ms: result.durationMs,
    figures: figures.filter((f) => f.path).map((f) => f.path),
    ...(result.spillPath ? { full_output_path: result.spillPath } : {}),
    ...(result.error ? { error: { ename: result.error.ename, evalue: result.error.evalue, line: result.error.line ?? null } } : {}),
    ...(result.restarted ? { restarted: true, lost_names: result.lostNames ?? [] } : {}),
    ...noted,
  };
  // The answer is the printed text and figures, so no structuredContent (see FACTS_KEY).
  const answer = contentResult([...before, ...runContent(result, figures, handle.timeoutS), ...warnings], facts);
  return runStatus(result) !== 'ok' ? { ...answer, isError: true } : answer;
}

function queuedNote(handle: RunHandle<unknown>): string | undefined {
  const behind = handle.queuedBehind;
  if (!behind || handle.startedAt === undefined) return undefined;
  const waited = handle.startedAt - handle.submittedAt;
  if (waited < QUEUE_NEWS_MS) return undefined;
  return `(This code waited ${formatDuration(waited)} in the queue behind run ${behind.id} before it started.)`;
}

/** What a run printed since the last look, and what to do next, in words a model acts on. */
function stillGoingResult(handle: RunHandle<unknown>): ToolResult {
  const facts = { run: handle.id, status: handle.state, running_s: Math.round(handle.runningMs() / 1000) };
  const pickUp = `wait_for_run(run="${handle.id}")`;
  if (handle.state === 'queued') {
    const behind = handle.queuedBehind;
    const front = behind ? `run ${behind.id}${behind.state === 'running' ? `, running for ${formatDuration(behind.runningMs())}: ${firstLine(behind.code)}` : ''}` : 'another run';
    return contentResult(
      [{ type: 'text', text: `This code has not started yet (run ${handle.id}): it waits behind ${front}. It starts when that run ends. Call ${pickUp} to wait for it, or interrupt_kernel to stop the run in front.` }],
      facts,
    );
  }
  const look = handle.takeNew();
  const partial: ExecutionResult = { status: 'ok', executionCount: null, outputs: look.outputs, durationMs: handle.runningMs(), streamChars: 0 };
  const content = runContent(partial, unsavedFigures(look.outputs)).filter((c) => !(c.type === 'text' && c.text === '(no output)'));
  const left = [
    look.omittedChars ? `${look.omittedChars} characters` : '',
    look.omittedFigures ? `${look.omittedFigures} figure${look.omittedFigures === 1 ? '' : 's'}` : '',
  ].filter(Boolean);
  if (left.length) content.unshift({ type: 'text', text: `[… ${left.join(' and ')} printed since the last look left out here; the run's result keeps all of it …]\n` });
  const question = handle.question?.isOpen ? handle.question : undefined;
  if (question) {
    content.push({
      type: 'text',
      text: `${content.length ? '\n' : ''}[The code is waiting for the person to answer ${question.password ? 'a password prompt' : 'input'}: ${JSON.stringify(question.prompt)}. They can answer it in the panel (python-session-mcp status shows its address); declining stops the code with KeyboardInterrupt.]`,
    });
  }
  content.push({
    type: 'text',
    text: `${content.length ? '\n' : ''}[Still running after ${formatDuration(handle.runningMs())} (run ${handle.id}); this is not an error. It goes on with no caller waiting. Call ${pickUp} for what it prints next and its result, or interrupt_kernel to stop it.]`,
  });
  return contentResult(queuedNote(handle) ? [{ type: 'text', text: `${queuedNote(handle)}\n` }, ...content] : content, facts);
}

/** Images of a run still going: sent now, saved with the run's result when it ends. */
function unsavedFigures(outputs: Output[]): SavedFigure[] {
  const figures: SavedFigure[] = [];
  for (const output of outputs) {
    if (output.type !== 'display_data' && output.type !== 'execute_result') continue;
    for (const mimeType of Object.keys(IMAGE_TYPES)) {
      const data = output.data[mimeType];
      if (typeof data !== 'string') continue;
      figures.push({ path: '', mimeType, bytes: mimeType === 'image/svg+xml' ? Buffer.from(data, 'utf8') : Buffer.from(data, 'base64'), error: 'it is saved with the run\'s result when the run ends' });
    }
  }
  return figures;
}

/** The run a wait_for_run call means, or the words that say why there is none. */
function findRun(context: ToolContext, id: string | undefined, sessionName: string | undefined): RunHandle<unknown> | string {
  const sessions: Session[] = sessionName ? [context.sessions.find(sessionName)].filter((s): s is Session => !!s) : context.sessions.list();
  if (id) {
    for (const session of sessions) {
      const handle = session.runs.get(id);
      if (handle) return handle;
    }
  } else {
    const session = context.sessions.find(sessionName ?? DEFAULT_SESSION);
    const latest = session?.runs.latest();
    if (latest) return latest;
  }
  const known = sessions.flatMap((s) => s.runs.list('code')).reverse();
  const what = id ? `No run "${id}"${sessionName ? ` in session "${sessionName}"` : ''}.` : `Session "${sessionName ?? DEFAULT_SESSION}" has no runs yet.`;
  if (!known.length) return `${what} No runs are known${sessionName ? ' there' : ''}; run_python starts one and its reply names it.`;
  const lines = known.slice(0, 10).map((r) => `  ${r.id}: ${r.state === 'done' ? 'finished' : r.state === 'running' ? `running for ${formatDuration(r.runningMs())}` : 'queued'} — ${firstLine(r.code)}`);
  return `${what} The runs it could mean:\n${lines.join('\n')}`;
}
