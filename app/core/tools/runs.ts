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
import { contentResult, errorResult, sessionFor, textResult, type Content, type ToolContext, type ToolResult } from './tool-context.js';

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
  const session = await sessionFor(context, args.session ?? DEFAULT_SESSION);
  const handle = session.submit({
    code: args.code,
    client: context.clientName(),
    timeoutS: args.timeout_s ?? context.settings.timeoutS(),
    outputLimit: context.settings.outputLimit(),
  });
  return waitAndAnswer(handle, args.wait_s ?? context.settings.waitS(), extra, { stopOnCancel: true });
}

export async function waitForRun(context: ToolContext, args: { run?: string; wait_s?: number; session?: string }, extra: Extra): Promise<ToolResult> {
  const found = findRun(context, args.run, args.session);
  if (typeof found === 'string') return errorResult(found);
  // Only looks: a client that gives up on this call does not stop the run.
  return waitAndAnswer(found, args.wait_s ?? context.settings.waitS(), extra, { stopOnCancel: false });
}

/** Waits up to waitS for the run; with stopOnCancel, a caller that gives up inside its wait stops the run. */
async function waitAndAnswer(handle: RunHandle<unknown>, waitS: number, extra: Extra, options: { stopOnCancel: boolean }): Promise<ToolResult> {
  const untie = handle.tieTo(options.stopOnCancel ? extra.signal : undefined);
  const stopProgress = progressReporter(extra, handle);
  try {
    const outcome = await handle.waitUpTo(waitS * 1000);
    if (outcome === undefined) return stillGoingResult(handle);
    // A helper call (named by a busy answer) has no result of its own to give: its caller had it.
    if (handle.kind === 'helper') return textResult(`Run ${handle.id} (${firstLine(handle.code)}) has ended; the kernel is free for the next call.`, { run: handle.id, status: 'done' });
    return outcomeResult(outcome as RunOutcome, handle);
  } catch (error) {
    return errorResult(`Run ${handle.id} did not run: ${toolErrorText(error)}`, { run: handle.id, status: 'not run' });
  } finally {
    untie();
    stopProgress();
  }
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
