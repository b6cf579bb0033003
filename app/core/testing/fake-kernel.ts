/**
 * A kernel the tests script, in memory: the real KernelSupervisor over a provisioner and a
 * transport that do what a test tells them. Every execute_request becomes a FakeCell the test
 * drives (begin, print, display, raise, finish) or hands to `onCell`; an interrupt raises
 * KeyboardInterrupt in the running cell unless the process ignores interrupts; `die()` ends the
 * process as a crash would, and the supervisor replaces it. No process, socket or timer of its own.
 */
import { EventEmitter } from 'node:events';
import { createMessage, type JsonObject, type JupyterMessage } from '../wire/index.js';
import { RESULT_MIME } from '../sessions/helper-bridge.js';
import type { Incarnation, KernelPlace, KernelProvisioner, ProvisionerEvents } from '../kernel/supervision/provisioner.js';
import { KernelSupervisor, type SupervisorOptions } from '../kernel/supervision/supervisor.js';
import { askOrRefuse, inputRequestOf, MessageRouter, type IopubHandler, type KernelTransport, type RequestChannel, type SentRequest, type TransportEvents } from '../kernel/messaging/transport.js';

const NAMES_KEY = '__python_session_names__';

/** One execute_request as the fake kernel process sees it. */
export class FakeCell {
  private ended = false;
  private begun = false;

  constructor(
    readonly code: string,
    /** False for helper calls (store_history false). */
    readonly storeHistory: boolean,
    private readonly process: FakeProcess,
    private readonly request: JupyterMessage,
  ) {}

  get isDone(): boolean {
    return this.ended;
  }

  /** busy, then execute_input: the kernel has entered the cell (interrupts reach it from now). */
  begin(): this {
    if (this.begun) return this;
    this.begun = true;
    this.process.running = this;
    if (this.storeHistory) this.process.executionCount++;
    this.publish('status', { execution_state: 'busy' });
    this.publish('execute_input', { code: this.code, execution_count: this.process.executionCount });
    return this;
  }

  print(text: string, name: 'stdout' | 'stderr' = 'stdout'): this {
    this.begin();
    this.publish('stream', { name, text });
    return this;
  }

  display(data: JsonObject): this {
    this.begin();
    this.publish('display_data', { data, metadata: {} });
    return this;
  }

  /** A helper's one result bundle (ok, text, structured, and code for the record if any). */
  answer(payload: JsonObject): this {
    return this.display({ [RESULT_MIME]: payload });
  }

  /** Whether the request allowed stdin (a code run with someone to ask, not a helper call). */
  get allowsStdin(): boolean {
    return this.request.content.allow_stdin === true;
  }

  /** The code asks a question (input(), getpass): resolves with the line the kernel is sent back. */
  ask(prompt: string, password = false): Promise<string> {
    this.begin();
    return new Promise((resolve) => {
      const message = createMessage('input_request', 'kernel', { prompt, password }, this.request.header);
      askOrRefuse(this.process.transport, inputRequestOf(message, resolve));
    });
  }

  /** Raises in the cell and ends it with an error reply. */
  raise(ename: string, evalue = ''): void {
    this.begin();
    this.publish('error', { ename, evalue, traceback: [`${ename}: ${evalue}`] });
    this.finish('error', { ename, evalue });
  }

  /** The reply, then idle. `names`: the user's names after the cell (what a death would lose). */
  finish(status: 'ok' | 'error' = 'ok', error?: { ename: string; evalue: string }, names?: string[]): void {
    if (this.ended) return;
    this.begin();
    this.ended = true;
    if (this.process.running === this) this.process.running = null;
    if (names) this.process.names = names;
    const replyContent: JsonObject = {
      status,
      execution_count: this.process.executionCount,
      user_expressions: { [NAMES_KEY]: { status: 'ok', data: { 'text/plain': `'${this.process.names.join(' ')}'` } } },
      ...(error ? { ename: error.ename, evalue: error.evalue, traceback: [] } : {}),
    };
    this.process.transport.deliverReply(createMessage('execute_reply', 'kernel', replyContent, this.request.header));
    this.publish('status', { execution_state: 'idle' });
  }

  private publish(msgType: string, content: JsonObject): void {
    this.process.transport.deliverIopub(createMessage(msgType, 'kernel', content, this.request.header));
  }
}

/** The transport to one fake process: requests become cells; what the cells publish is routed by parent, as every transport does. */
export class FakeTransport extends EventEmitter<TransportEvents> implements KernelTransport {
  isOpen = true;
  readonly badSignatures = 0;
  /** The session id the fake's requests carry (its kernel's publications under another are another client's). */
  readonly session = 'client';
  private readonly router = new MessageRouter();

  constructor(private readonly process: FakeProcess) {
    super();
  }

  request(_channel: RequestChannel, msgType: string, content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest {
    const request = createMessage(msgType, this.session, content);
    const msgId = request.header.msg_id;
    beforeSend?.(msgId);
    const reply = this.router.expectReply(msgId, (fail) => {
      if (!this.isOpen) fail(new Error('the fake kernel is closed'));
    });
    if (this.isOpen && msgType === 'execute_request') this.process.receive(new FakeCell(String(content.code), content.store_history !== false, this.process, request));
    return { msgId, reply };
  }

  onParent(msgId: string, handler: IopubHandler): () => void {
    return this.router.onParent(msgId, handler);
  }

  abandon(msgId: string, error?: Error): void {
    this.router.abandon(msgId, error);
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.router.failAll(new Error('the fake kernel is closed'));
  }

  deliverReply(message: JupyterMessage): void {
    if (this.isOpen) this.router.reply(message);
  }

  deliverIopub(message: JupyterMessage): void {
    if (!this.isOpen) return;
    const routed = this.router.iopub(message);
    this.emit('iopub', message, routed);
  }
}

/** One fake kernel process: its namespace names, execution count, and the cell it runs. */
export class FakeProcess {
  readonly transport = new FakeTransport(this);
  readonly startedAt = Date.now();
  executionCount = 0;
  names: string[] = [];
  running: FakeCell | null = null;
  interrupts = 0;

  constructor(
    readonly provisioner: FakeProvisioner,
    readonly number: number,
  ) {}

  receive(cell: FakeCell): void {
    this.provisioner.hand(cell);
  }

  incarnation(): Incarnation {
    return { transport: this.transport, kernelInfo: { implementation: 'fake', language_info: { name: 'python', version: '3.fake' } }, startedAt: this.startedAt };
  }
}

/** The scripted provisioner: start, restart, interrupt and death, as a test asks. */
export class FakeProvisioner extends EventEmitter<ProvisionerEvents> implements KernelProvisioner {
  readonly owned: boolean;
  readonly helperTransport = 'local-path' as const;
  readonly place: KernelPlace = { kind: 'local' };
  readonly endedFromElsewhere = false;
  readonly pid = undefined;
  readonly connectionFile = undefined;
  readonly logLines: string[] = [];
  /** Every process started, the first one first. */
  readonly processes: FakeProcess[] = [];
  /** Handles each cell as it arrives; without it, cells wait for nextCell(). */
  onCell: ((cell: FakeCell) => void) | null = null;
  /** The running cell ignores interrupts (a blocking C call): the supervisor escalates to a restart. */
  ignoreInterrupts = false;
  private readonly waiting: FakeCell[] = [];
  private readonly takers: ((cell: FakeCell) => void)[] = [];

  constructor(options: { owned?: boolean } = {}) {
    super();
    this.owned = options.owned ?? true;
  }

  get process(): FakeProcess {
    return this.processes[this.processes.length - 1];
  }

  /** The next cell the kernel receives (one already waiting, or the next to come). */
  nextCell(): Promise<FakeCell> {
    const cell = this.waiting.shift();
    if (cell) return Promise.resolve(cell);
    return new Promise((resolve) => this.takers.push(resolve));
  }

  hand(cell: FakeCell): void {
    if (this.onCell) return this.onCell(cell);
    const taker = this.takers.shift();
    if (taker) taker(cell);
    else this.waiting.push(cell);
  }

  async start(): Promise<Incarnation> {
    const process = new FakeProcess(this, this.processes.length + 1);
    this.processes.push(process);
    return process.incarnation();
  }

  async restart(): Promise<Incarnation> {
    this.process?.transport.close();
    return this.start();
  }

  async available(): Promise<Incarnation> {
    return this.process.incarnation();
  }

  async interrupt(): Promise<void> {
    const process = this.process;
    process.interrupts++;
    if (!this.ignoreInterrupts) process.running?.raise('KeyboardInterrupt');
  }

  outputLost(): void {}

  async shutdown(): Promise<void> {
    this.process?.transport.close();
  }

  /** The process dies as a crash would; the supervisor replaces it (a kernel we own). */
  die(what = 'the kernel exited with code 9'): void {
    this.process.transport.close();
    this.emit('died', { what, exit: { code: 9, signal: null, lastLines: [] }, lastLines: [], recovery: this.owned ? 'supervisor' : 'none' });
  }
}

/** The real supervisor over the fake provisioner: what a Session runs on in the tests. */
export function startFakeKernel(provisioner = new FakeProvisioner(), options: SupervisorOptions = {}): Promise<KernelSupervisor<FakeProvisioner>> {
  return KernelSupervisor.start(provisioner, { interruptGraceMs: 40, ...options });
}

/** Answers every cell at once: helper calls with `helper`'s payload, code with `run` (default: finish ok). */
export function autoAnswer(provisioner: FakeProvisioner, handlers: { helper?: (cell: FakeCell) => JsonObject; run?: (cell: FakeCell) => void } = {}): void {
  provisioner.onCell = (cell) => {
    if (!cell.storeHistory) {
      cell.answer(handlers.helper?.(cell) ?? { ok: true, text: 'answered', structured: null });
      cell.finish();
    } else if (handlers.run) handlers.run(cell);
    else cell.finish();
  };
}
