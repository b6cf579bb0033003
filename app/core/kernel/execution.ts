/**
 * One execute_request in flight, like @jupyterlab/services' KernelFuture: it is
 * done only when both its execute_reply and its idle status have arrived, so no
 * output published before the idle is ever missed. Stream text past the output
 * limit is kept as head and tail in memory and written whole to a spill file.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { JupyterMessage } from '../wire/index.js';
import { describePythonError, stripAnsi } from './error-text.js';
import type { ExecutionResult, MimeBundle, Output } from './outputs.js';

export interface OutputLimits {
  /** Characters of stream output kept in memory (half head, half tail). */
  maxChars?: number;
  /** Where the whole stream output goes once it passes maxChars; created on demand. */
  spillPath?: () => string;
  /** Rich outputs (images, HTML) kept; later ones are counted and dropped. */
  maxDisplayItems?: number;
}

type StreamName = 'stdout' | 'stderr';

export class Execution {
  readonly outputs: Output[] = [];
  readonly startedAt = Date.now();
  executionCount: number | null = null;
  streamChars = 0;
  private reply: JupyterMessage | null = null;
  private idle = false;
  private settled = false;
  private clearPending = false;
  private displayItems = 0;
  private droppedDisplays = 0;
  private spill: WriteStream | null = null;
  private spilling = false;
  private spillFile: string | undefined;
  private tail: { name: StreamName; text: string }[] = [];
  private tailChars = 0;
  private readonly maxChars: number;
  private readonly maxDisplayItems: number;
  private resolveDone!: (result: ExecutionResult) => void;
  private rejectDone!: (error: Error) => void;
  readonly done: Promise<ExecutionResult>;
  timedOut = false;
  interrupted = false;
  restarted = false;

  constructor(
    readonly msgId: string,
    private readonly limits: OutputLimits = {},
    private readonly onOutput?: (output: Output) => void,
  ) {
    this.maxChars = limits.maxChars ?? 1_000_000;
    this.maxDisplayItems = limits.maxDisplayItems ?? 100;
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
  }

  handleIopub(message: JupyterMessage): void {
    const content = message.content as Record<string, unknown>;
    switch (message.header.msg_type) {
      case 'status':
        if (content.execution_state === 'idle') {
          this.idle = true;
          this.maybeFinish();
        }
        return;
      case 'execute_input':
        if (typeof content.execution_count === 'number') this.executionCount = content.execution_count;
        return;
      case 'stream':
        this.addStream(content.name === 'stderr' ? 'stderr' : 'stdout', String(content.text ?? ''));
        return;
      case 'execute_result':
        this.addRich({
          type: 'execute_result',
          data: (content.data ?? {}) as MimeBundle,
          metadata: (content.metadata ?? {}) as Record<string, unknown>,
          executionCount: typeof content.execution_count === 'number' ? content.execution_count : null,
        });
        return;
      case 'display_data':
        this.addRich({
          type: 'display_data',
          data: (content.data ?? {}) as MimeBundle,
          metadata: (content.metadata ?? {}) as Record<string, unknown>,
          displayId: displayIdOf(content),
        });
        return;
      case 'update_display_data': {
        const id = displayIdOf(content);
        const index = this.outputs.findIndex((o) => o.type === 'display_data' && o.displayId === id);
        if (index >= 0) {
          this.outputs[index] = { ...(this.outputs[index] as Extract<Output, { type: 'display_data' }>), data: (content.data ?? {}) as MimeBundle };
        }
        return;
      }
      case 'clear_output':
        if (content.wait) this.clearPending = true;
        else this.clear();
        return;
      case 'error':
        this.push({
          type: 'error',
          ename: String(content.ename ?? ''),
          evalue: String(content.evalue ?? ''),
          traceback: Array.isArray(content.traceback) ? content.traceback.map((l) => stripAnsi(String(l))) : [],
        });
        return;
    }
  }

  handleReply(message: JupyterMessage): void {
    this.reply = message;
    const count = (message.content as { execution_count?: unknown }).execution_count;
    if (typeof count === 'number') this.executionCount = count;
    this.maybeFinish();
  }

  /** Ends the execution with an error (kernel died, connection lost). */
  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.closeSpill();
    this.rejectDone(error);
  }

  /**
   * Ends the execution without its reply (the kernel was restarted to stop it):
   * the caller still gets everything printed so far.
   */
  finishWithoutReply(status: 'aborted' | 'error' = 'aborted'): void {
    if (this.settled) return;
    this.reply = { content: { status, execution_count: this.executionCount } } as unknown as JupyterMessage;
    this.idle = true;
    this.maybeFinish();
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** Everything printed so far, including the kept tail. */
  snapshot(): Output[] {
    return [...this.outputs, ...this.tailOutputs()];
  }

  private clear(): void {
    this.clearPending = false;
    // Cleared text stays in the spill file; only what is shown is reset.
    this.outputs.length = 0;
    this.tail = [];
    this.tailChars = 0;
  }

  private push(output: Output): void {
    if (this.clearPending) this.clear();
    this.outputs.push(output);
    this.onOutput?.(output);
  }

  private addRich(output: Output): void {
    if (this.displayItems >= this.maxDisplayItems) {
      this.droppedDisplays++;
      return;
    }
    this.displayItems++;
    this.push(output);
  }

  private addStream(name: StreamName, text: string): void {
    if (!text) return;
    if (this.clearPending) this.clear();
    this.streamChars += text.length;
    if (!this.spilling) {
      this.appendStream(name, text);
      if (this.streamChars > this.maxChars) this.startSpill();
      return;
    }
    this.spill?.write(text);
    this.pushTail(name, text);
    this.onOutput?.({ type: 'stream', name, text });
  }

  private appendStream(name: StreamName, text: string): void {
    const last = this.outputs.at(-1);
    if (last?.type === 'stream' && last.name === name) last.text += text;
    else this.outputs.push({ type: 'stream', name, text });
    this.onOutput?.({ type: 'stream', name, text });
  }

  /** Past the limit: everything so far goes to the spill file; memory keeps a head and a tail. */
  private startSpill(): void {
    this.spilling = true;
    const path = this.limits.spillPath?.();
    if (path) {
      try {
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
        this.spill = createWriteStream(path, { mode: 0o600 });
        this.spill.on('error', () => (this.spill = null)); // a full disk loses the spill, not the run
        this.spillFile = path;
      } catch {
        this.spill = null;
      }
    }
    const headBudget = Math.floor(this.maxChars / 2);
    let used = 0;
    for (const output of this.outputs) {
      if (output.type !== 'stream') continue;
      this.spill?.write(output.text);
      const keep = Math.max(0, Math.min(output.text.length, headBudget - used));
      if (keep < output.text.length) this.pushTail(output.name, output.text.slice(keep));
      output.text = output.text.slice(0, keep);
      used += keep;
    }
    this.outputs.splice(0, this.outputs.length, ...this.outputs.filter((o) => o.type !== 'stream' || o.text !== ''));
  }

  private pushTail(name: StreamName, text: string): void {
    const tailBudget = this.maxChars - Math.floor(this.maxChars / 2);
    this.tail.push({ name, text });
    this.tailChars += text.length;
    while (this.tail.length > 1 && this.tailChars - this.tail[0].text.length >= tailBudget) {
      this.tailChars -= this.tail.shift()!.text.length;
    }
  }

  private tailOutputs(): Output[] {
    if (this.tail.length === 0) return [];
    const keptHead = this.outputs.reduce((n, o) => n + (o.type === 'stream' ? o.text.length : 0), 0);
    let tailText = this.tail.map((t) => t.text).join('');
    const tailBudget = this.maxChars - Math.floor(this.maxChars / 2);
    if (tailText.length > tailBudget) tailText = tailText.slice(-tailBudget);
    const omitted = this.streamChars - keptHead - tailText.length;
    const marker: Output = { type: 'omitted', chars: omitted, spillPath: this.spillFile, what: 'output' };
    return [marker, { type: 'stream', name: this.tail.at(-1)!.name, text: tailText }];
  }

  private maybeFinish(): void {
    if (this.settled || !this.reply || !this.idle) return;
    this.settled = true;
    this.closeSpill();
    const content = this.reply.content as Record<string, unknown>;
    const status = content.status === 'error' ? 'error' : content.status === 'aborted' ? 'aborted' : 'ok';
    const outputs = [...this.outputs, ...this.tailOutputs()];
    if (this.droppedDisplays > 0) {
      outputs.push({ type: 'omitted', chars: 0, what: `${this.droppedDisplays} further rich outputs (images, tables)` });
    }
    const result: ExecutionResult = {
      status,
      executionCount: this.executionCount,
      outputs,
      durationMs: Date.now() - this.startedAt,
      streamChars: this.streamChars,
      spillPath: this.spillFile,
    };
    if (status === 'error') {
      const errorOutput = this.outputs.find((o) => o.type === 'error');
      result.error = describePythonError(errorOutput ?? content, this.executionCount);
    }
    if (this.timedOut) result.timedOut = true;
    if (this.interrupted) result.interrupted = true;
    if (this.restarted) result.restarted = true;
    this.resolveDone(result);
  }

  private closeSpill(): void {
    this.spill?.end();
  }
}

function displayIdOf(content: Record<string, unknown>): string | undefined {
  const transient = content.transient as { display_id?: unknown } | undefined;
  return typeof transient?.display_id === 'string' ? transient.display_id : undefined;
}

