/**
 * What one run printed and displayed, bounded: stream text past the output limit is kept as head
 * and tail in memory and written whole to a spill file; rich outputs are capped; a displayed
 * value's text is capped too; carriage returns are applied to what comes back (a progress bar
 * comes back as its last state). It knows nothing of replies or kernels: ExecutionFuture feeds
 * it the iopub messages of its request and asks for the result at the end.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import type { JupyterMessage } from '../../wire/index.js';
import { applyCarriageReturns } from './carriage-returns.js';
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

/** How a run ended, as far as the output is concerned. */
export interface RunEnding {
  content: Record<string, unknown>;
  executionCount: number | null;
  durationMs: number;
  timedOut: boolean;
  interrupted: boolean;
  /** Set when the kernel had to be restarted to stop it: the names the restart took. */
  lostNames: string[] | null;
}

export class OutputCollector {
  readonly outputs: Output[] = [];
  streamChars = 0;
  private clearPending = false;
  private displayItems = 0;
  private droppedDisplays = 0;
  private spill: WriteStream | null = null;
  private spilling = false;
  private spillFile: string | undefined;
  /** Why the spill file could not be written (a full disk), once that happened. */
  private spillError: string | null = null;
  /** Rich outputs that came while spilling, with how much stream text had come before each. */
  private lateRich: { at: number; output: Output }[] = [];
  private tail: { name: StreamName; text: string }[] = [];
  private tailChars = 0;
  private readonly maxChars: number;
  private readonly maxDisplayItems: number;

  constructor(
    private readonly limits: OutputLimits = {},
    private readonly onOutput?: (output: Output) => void,
  ) {
    this.maxChars = limits.maxChars ?? 1_000_000;
    this.maxDisplayItems = limits.maxDisplayItems ?? 100;
  }

  /** Takes one output-bearing iopub message (stream, results, displays, clear_output, error). */
  take(message: JupyterMessage): void {
    const content = message.content as Record<string, unknown>;
    switch (message.header.msg_type) {
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
          this.outputs[index] = { ...(this.outputs[index] as Extract<Output, { type: 'display_data' }>), data: this.capText((content.data ?? {}) as MimeBundle) };
        }
        return;
      }
      case 'clear_output':
        if (content.wait) this.clearPending = true;
        else this.clear();
        return;
      case 'error': {
        // `raise ValueError(huge)`: the message is output too, and bounded like the rest.
        const { ename, evalue, traceback } = this.capError(content);
        this.push({ type: 'error', ename, evalue, traceback: traceback.map((l) => stripAnsi(l)) });
        return;
      }
    }
  }

  private clear(): void {
    this.clearPending = false;
    // Cleared text stays in the spill file; only what is shown is reset.
    this.outputs.length = 0;
    this.tail = [];
    this.tailChars = 0;
    this.lateRich = [];
  }

  private push(output: Output): void {
    if (this.clearPending) this.clear();
    // Past the limit the text so far is split into head and tail: remember where this came, so
    // that a cell's last value (or a figure) is shown after the text printed before it.
    if (this.spilling) this.lateRich.push({ at: this.streamChars, output });
    else this.outputs.push(output);
    this.onOutput?.(output);
  }

  private addRich(output: Extract<Output, { type: 'execute_result' | 'display_data' }>): void {
    if (this.displayItems >= this.maxDisplayItems) {
      this.droppedDisplays++;
      return;
    }
    this.displayItems++;
    this.push({ ...output, data: this.capText(output.data) });
  }

  /**
   * The output limit holds for a displayed value too (`big_string` as a cell's last line): its
   * text/plain keeps a head and a tail, and other text forms (HTML, Markdown) past a larger cap
   * are dropped, the text/plain standing in for them. Without this one repr could make a reply
   * bigger than an MCP client accepts, and that client would hang up.
   */
  private capText(data: MimeBundle): MimeBundle {
    let capped: MimeBundle | null = null;
    for (const [mime, value] of Object.entries(data)) {
      if (typeof value !== 'string' || !mime.startsWith('text/')) continue;
      const limit = mime === 'text/plain' ? this.maxChars : Math.max(this.maxChars, RICH_TEXT_LIMIT);
      if (value.length <= limit) continue;
      capped ??= { ...data };
      if (mime === 'text/plain') {
        capped[mime] = headAndTail(value, limit, 'this value');
      } else {
        delete capped[mime];
      }
    }
    return capped ?? data;
  }

  private capError(content: Record<string, unknown>): { ename: string; evalue: string; traceback: string[] } {
    const cap = (text: string) => (text.length <= this.maxChars ? text : headAndTail(text, this.maxChars, 'this message'));
    const lines = Array.isArray(content.traceback) ? content.traceback.map((line) => String(line)) : [];
    const kept = lines.length <= MAX_TRACEBACK_LINES ? lines : [...lines.slice(0, MAX_TRACEBACK_LINES / 2), `[… ${lines.length - MAX_TRACEBACK_LINES} traceback lines left out …]`, ...lines.slice(-MAX_TRACEBACK_LINES / 2)];
    return { ename: cap(String(content.ename ?? '')), evalue: cap(String(content.evalue ?? '')), traceback: kept.map(cap) };
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
        this.spill.on('error', (error) => {
          // A full disk loses the spill, not the run; the reply then does not point to the file.
          this.spill = null;
          this.spillError ??= error.message;
        });
        this.spillFile = path;
      } catch (error) {
        this.spill = null;
        this.spillError = (error as Error).message;
      }
    }
    const headBudget = Math.floor(this.maxChars / 2);
    let used = 0;
    for (const output of this.outputs) {
      if (output.type !== 'stream') continue;
      this.spill?.write(output.text);
      const keep = Math.max(0, Math.min(output.text.length, headBudget - used));
      if (keep < output.text.length) this.pushTail(output.name, output.text.slice(keep));
      output.text = detached(output.text.slice(0, keep));
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
    if (this.tail.length === 0 && this.lateRich.length === 0) return [];
    const keptHead = this.outputs.reduce((n, o) => n + (o.type === 'stream' ? o.text.length : 0), 0);
    let tailText = this.tail.map((t) => t.text).join('');
    const tailBudget = this.maxChars - Math.floor(this.maxChars / 2);
    if (tailText.length > tailBudget) tailText = tailText.slice(-tailBudget);
    const tailStart = this.streamChars - tailText.length;
    const marker: Output = this.spillError
      ? { type: 'omitted', chars: tailStart - keptHead, what: `output, which could not be saved (${this.spillError}),` }
      : { type: 'omitted', chars: tailStart - keptHead, spillPath: this.spillFile, what: 'output' };
    const name = this.tail.at(-1)?.name ?? 'stdout';
    const outputs: Output[] = [marker];
    let shown = 0;
    for (const { at, output } of this.lateRich) {
      const upTo = Math.max(shown, Math.min(tailText.length, at - tailStart));
      if (upTo > shown) outputs.push({ type: 'stream', name, text: detached(tailText.slice(shown, upTo)) });
      shown = upTo;
      outputs.push(output);
    }
    if (shown < tailText.length) outputs.push({ type: 'stream', name, text: detached(tailText.slice(shown)) });
    return outputs;
  }

  /** The run's result from what was collected and how it ended. */
  result(ending: RunEnding): ExecutionResult {
    const content = ending.content;
    const status = content.status === 'error' ? 'error' : content.status === 'aborted' ? 'aborted' : 'ok';
    // Progress bars redraw a line with carriage returns: what comes back is what a terminal shows
    // (the spill file keeps every frame).
    const outputs = [...this.outputs, ...this.tailOutputs()].map((o) => (o.type === 'stream' && o.text.includes('\r') ? { ...o, text: applyCarriageReturns(o.text) } : o));
    if (this.droppedDisplays > 0) {
      outputs.push({ type: 'omitted', chars: 0, what: `${this.droppedDisplays} further rich outputs (images, tables)` });
    }
    const result: ExecutionResult = {
      status,
      executionCount: ending.executionCount,
      outputs,
      durationMs: ending.durationMs,
      streamChars: this.streamChars,
      spillPath: this.spillError ? undefined : this.spillFile,
    };
    if (status === 'error') {
      const errorOutput = outputs.find((o) => o.type === 'error');
      result.error = describePythonError(errorOutput ?? this.capError(content), ending.executionCount);
    }
    if (ending.timedOut) result.timedOut = true;
    if (ending.interrupted) result.interrupted = true;
    if (ending.lostNames) {
      result.restarted = true;
      result.lostNames = ending.lostNames;
    }
    return result;
  }

  /** Ends the spill file; resolves once it is written (or could not be). */
  closeSpill(): Promise<void> {
    const spill = this.spill;
    if (!spill) return Promise.resolve();
    // 'close' follows both 'finish' and 'error' (autoClose).
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, 10_000); // a disk that never answers must not hold the reply
      spill.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      spill.end();
    });
  }
}

/** Traceback lines kept (half from each end): IPython already folds deep recursion. */
const MAX_TRACEBACK_LINES = 400;

/** Text forms other than text/plain larger than this are dropped from a displayed value. */
const RICH_TEXT_LIMIT = 1_000_000;

/**
 * A copy sharing no memory with `text`. V8 keeps a whole string alive for as long as any slice
 * of it lives, so the 20 kB head and tail of a 150 MB output would otherwise hold all 150 MB
 * for as long as the result is kept.
 */
function detached(text: string): string {
  return text.length ? Buffer.from(text, 'utf16le').toString('utf16le') : text;
}

/** The first and last `limit / 2` characters, with what was left out said between them. */
function headAndTail(text: string, limit: number, what: string): string {
  const head = Math.floor(limit / 2);
  const tail = limit - head;
  return `${detached(text.slice(0, head))}\n[… ${text.length - head - tail} characters of ${what} left out …]\n${detached(text.slice(-tail))}`;
}

function displayIdOf(content: Record<string, unknown>): string | undefined {
  const transient = content.transient as { display_id?: unknown } | undefined;
  return typeof transient?.display_id === 'string' ? transient.display_id : undefined;
}

