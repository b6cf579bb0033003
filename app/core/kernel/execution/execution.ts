/**
 * One execute_request in flight, like @jupyterlab/services' KernelFutureHandler: it is done only
 * when both its execute_reply and its idle status have arrived, so no output published before the
 * idle is ever missed. What the request printed goes to its OutputCollector. How it ended
 * (timed out, interrupted, stopped by a restart) is told through methods, never set from outside.
 */
import type { JupyterMessage } from '../../wire/index.js';
import { OutputCollector, type OutputLimits } from './output-collector.js';
import type { ExecutionResult, Output } from './outputs.js';

export type { OutputLimits } from './output-collector.js';

/** How long after its idle status a request's reply may still come (they travel on different sockets). */
const REPLY_AFTER_IDLE_MS = 2000;

export class ExecutionFuture {
  readonly startedAt = Date.now();
  private readonly collector: OutputCollector;
  private executionCount: number | null = null;
  private reply: Record<string, unknown> | null = null;
  private idle = false;
  private settled = false;
  private sawIopub = false;
  private sawError = false;
  private timedOut = false;
  private interrupted = false;
  private lostNames: string[] | null = null;
  private resolveDone!: (result: ExecutionResult) => void;
  private rejectDone!: (error: Error) => void;
  readonly done: Promise<ExecutionResult>;
  private markBegun!: () => void;
  private noReply: NodeJS.Timeout | undefined;
  /** Resolves once the kernel has begun running the code (its execute_input), or the run is over. */
  readonly begun: Promise<void> = new Promise((resolve) => (this.markBegun = resolve));

  constructor(limits: OutputLimits = {}, onOutput?: (output: Output) => void) {
    this.collector = new OutputCollector(limits, onOutput);
    this.done = new Promise((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
  }

  get isSettled(): boolean {
    return this.settled;
  }

  /** Whether any iopub message of this request has arrived (a relay that lost output sends none). */
  get hasOutput(): boolean {
    return this.sawIopub;
  }

  /** Whether the kernel has published an error for this request (the run is ending). */
  get hasError(): boolean {
    return this.sawError;
  }

  get wasInterrupted(): boolean {
    return this.interrupted;
  }

  get wasTimedOut(): boolean {
    return this.timedOut;
  }

  markTimedOut(): void {
    this.timedOut = true;
  }

  markInterrupted(): void {
    this.interrupted = true;
  }

  /** The kernel is being restarted to stop this run (or by request while it runs): `lost` went with it. */
  markRestarted(lost: readonly string[]): void {
    this.lostNames = [...lost];
  }

  handleIopub(message: JupyterMessage): void {
    this.sawIopub = true;
    const content = message.content as Record<string, unknown>;
    switch (message.header.msg_type) {
      case 'status':
        if (content.execution_state === 'idle') {
          this.idle = true;
          this.maybeFinish();
          // ipykernel sends the reply before going idle. Idle with no reply means the request
          // ended inside the kernel's own machinery (an interrupt that landed just before or
          // after the user's code, which ipykernel logs and swallows): no reply will ever come.
          if (!this.settled) this.noReply = setTimeout(() => this.finishWithoutReply('aborted'), REPLY_AFTER_IDLE_MS).unref();
        }
        return;
      case 'execute_input':
        if (typeof content.execution_count === 'number') this.executionCount = content.execution_count;
        this.markBegun();
        return;
      case 'error':
        this.sawError = true;
        this.collector.take(message);
        return;
      default:
        this.collector.take(message);
    }
  }

  handleReply(message: JupyterMessage): void {
    if (this.settled) return;
    clearTimeout(this.noReply);
    this.reply = message.content as Record<string, unknown>;
    const count = this.reply.execution_count;
    if (typeof count === 'number') this.executionCount = count;
    this.maybeFinish();
  }

  /** Ends the execution with an error (kernel died, connection lost). */
  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.noReply);
    this.markBegun();
    void this.collector.closeSpill();
    this.rejectDone(error);
  }

  /**
   * Ends the execution without its reply (the kernel was restarted to stop it):
   * the caller still gets everything printed so far.
   */
  finishWithoutReply(status: 'aborted' | 'error' = 'aborted'): void {
    if (this.settled) return;
    this.reply = { status, execution_count: this.executionCount };
    this.idle = true;
    this.maybeFinish();
  }

  private maybeFinish(): void {
    if (this.settled || !this.reply || !this.idle) return;
    this.settled = true;
    clearTimeout(this.noReply);
    this.markBegun();
    const content = this.reply;
    // The reply names the spill file only once it is written (or says it could not be).
    void this.collector.closeSpill().then(() =>
      this.resolveDone(
        this.collector.result({
          content,
          executionCount: this.executionCount,
          durationMs: Date.now() - this.startedAt,
          timedOut: this.timedOut,
          interrupted: this.interrupted,
          lostNames: this.lostNames,
        }),
      ),
    );
  }
}
