/**
 * The supervisor's reading of a KeyboardInterrupt nobody here asked for, on a kernel that can be
 * ended from elsewhere (a Jupyter server interrupts its kernels before it shuts or restarts them):
 * the run waits for that end or for the kernel to show it goes on (two kernel_info round trips on
 * control), never on a pause. Pure logic over a scripted transport; the same path against a real
 * server stopping is in remote-kernel.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createMessage, type JsonObject, type JupyterMessage } from '../../wire/index.js';
import { KernelDiedError } from './kernel-errors.js';
import { KernelSupervisor } from './supervisor.js';
import { OneTransportProvisioner } from '../../testing/one-transport-provisioner.js';
import type { IopubHandler, KernelTransport, RequestChannel, SentRequest, TransportEvents } from '../messaging/transport.js';

const INTERRUPTED = { status: 'error', ename: 'KeyboardInterrupt', evalue: '', traceback: ['KeyboardInterrupt'] };

/**
 * Every run is interrupted from elsewhere; each kernel_info probe on control is answered or not,
 * as `probe` says (called with the probe's number, from 1).
 */
class InterruptedElsewhere extends EventEmitter<TransportEvents> implements KernelTransport {
  isOpen = true;
  readonly session = 'client';
  readonly badSignatures = 0;
  readonly probes: string[] = [];
  readonly abandoned: string[] = [];
  private readonly handlers = new Map<string, IopubHandler>();
  private readonly pending = new Map<string, (error: Error) => void>();
  /** Called right after the run's reply is handled, in the same turn. */
  afterReply: (() => void) | undefined;

  constructor(private readonly probe: (n: number) => 'answer' | 'silent') {
    super();
  }

  request(channel: RequestChannel, msgType: string, _content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest {
    const request = createMessage(msgType, this.session, {});
    const msgId = request.header.msg_id;
    beforeSend?.(msgId);
    const kernel = (type: string, content: JsonObject): JupyterMessage => createMessage(type, 'kernel', content, request.header);
    if (channel === 'shell' && msgType === 'execute_request') {
      queueMicrotask(() => {
        const iopub = this.handlers.get(msgId);
        iopub?.(kernel('status', { execution_state: 'busy' }));
        iopub?.(kernel('execute_input', { code: '', execution_count: 1 }));
        iopub?.(kernel('error', { ename: 'KeyboardInterrupt', evalue: '', traceback: ['KeyboardInterrupt'] }));
        iopub?.(kernel('status', { execution_state: 'idle' }));
      });
      let deliver!: (message: JupyterMessage) => void;
      const reply = new Promise<JupyterMessage>((resolve) => (deliver = resolve));
      setImmediate(() => {
        // Registered after the supervisor's own handler, so it runs once the run is settled and
        // before the supervisor reads its result: what one read of a socket does.
        if (this.afterReply) void reply.then(this.afterReply);
        deliver(kernel('execute_reply', { ...INTERRUPTED, execution_count: 1 }));
      });
      return { msgId, reply };
    }
    if (channel === 'control' && msgType === 'kernel_info_request') {
      this.probes.push(msgId);
      if (this.probe(this.probes.length) === 'answer') return { msgId, reply: Promise.resolve(kernel('kernel_info_reply', { status: 'ok' })) };
      return { msgId, reply: new Promise((_resolve, reject) => this.pending.set(msgId, reject)) };
    }
    return { msgId, reply: Promise.resolve(kernel(msgType.replace('_request', '_reply'), { status: 'ok' })) };
  }

  onParent(msgId: string, handler: IopubHandler): () => void {
    this.handlers.set(msgId, handler);
    return () => this.handlers.delete(msgId);
  }

  abandon(msgId: string, error?: Error): void {
    this.handlers.delete(msgId);
    const reject = this.pending.get(msgId);
    this.pending.delete(msgId);
    if (reject) {
      this.abandoned.push(msgId);
      if (error) reject(error);
    }
  }

  close(): void {
    this.isOpen = false;
  }
}

/** A server's kernel (one that can be ended from elsewhere) over the scripted transport. */
type ServerKernel = OneTransportProvisioner<InterruptedElsewhere>;

/** Far beyond each test's own timeout: a test that passes was decided by an event, not by this timer. */
const NEVER = { endedThereWaitMs: 30_000 };
const BOUNDED = { timeout: 10_000 };

async function kernelWith(probe: (n: number) => 'answer' | 'silent', options = NEVER): Promise<{ kernel: KernelSupervisor<ServerKernel>; server: ServerKernel }> {
  const server = new OneTransportProvisioner(new InterruptedElsewhere(probe), 'lab', true);
  return { kernel: await KernelSupervisor.start(server, options), server };
}

test('a kernel that answers two control probes after the interrupt goes on: the run is told KeyboardInterrupt', BOUNDED, async () => {
  const { kernel, server } = await kernelWith(() => 'answer');
  const result = await kernel.execute('import time; time.sleep(30)');
  assert.equal(result.error?.ename, 'KeyboardInterrupt');
  assert.equal(server.transport.probes.length, 2);
  assert.deepEqual(server.transport.abandoned, [], 'nothing left waiting');
});

test('a server that shuts the kernel down after the interrupt, however late: the run is lost with it', BOUNDED, async () => {
  let server!: ServerKernel;
  const made = await kernelWith(() => {
    // The shutdown broadcast comes only after the probe went out, unanswered: a fixed pause would be over by then on a slow machine.
    setImmediate(() => server.emit('run-ended-there', "The kernel on lab was shut down from the server's side while this ran.", 'A fresh kernel will be started.'));
    return 'silent';
  });
  server = made.server;
  await assert.rejects(made.kernel.execute('import time; time.sleep(30)'), (error: Error) => {
    assert.ok(error instanceof KernelDiedError);
    assert.match(error.message, /^The kernel on lab was shut down from the server's side while this ran\.\n.*A fresh kernel will be started\.$/s);
    return true;
  });
  assert.equal(server.transport.probes.length, 1);
  assert.equal(server.transport.abandoned.length, 1, 'the unanswered probe is let go');
});

test('a shutdown waiting beside the first probe: the second goes unanswered and the end that follows is what the run is told', BOUNDED, async () => {
  let server!: ServerKernel;
  const made = await kernelWith((n) => {
    if (n === 1) return 'answer';
    setImmediate(() => server.emit('run-ended-there', "The kernel on lab was shut down from the server's side while this ran.", 'A fresh kernel will be started.'));
    return 'silent';
  });
  server = made.server;
  await assert.rejects(made.kernel.execute('import time; time.sleep(30)'), /shut down from the server's side while this ran/);
  assert.equal(server.transport.probes.length, 2);
});

test('an end that arrives with the run’s last messages, before the supervisor looks at its KeyboardInterrupt: the run is told at once', BOUNDED, async () => {
  const { kernel, server } = await kernelWith(() => 'silent');
  server.transport.afterReply = () => server.emit('run-ended-there', "The kernel on lab was shut down from the server's side while this ran.", 'A fresh kernel will be started.');
  await assert.rejects(kernel.execute('import time; time.sleep(30)'), /shut down from the server's side while this ran/);
  assert.equal(server.transport.probes.length, 0, 'nothing asked of a kernel that is ending');
});

test('a restart from the server’s side after the interrupt: the run is told the kernel was restarted and what was lost', BOUNDED, async () => {
  let server!: ServerKernel;
  const made = await kernelWith(() => {
    setImmediate(() =>
      server.emit('died', {
        what: "it was restarted from the server's side",
        headline: "The kernel on lab was restarted from the server's side (in JupyterLab, or through the server's API): every variable is gone.",
        cause: "the kernel was restarted from the server's side",
        exit: null,
        lastLines: [],
        recovery: 'provisioner',
      }),
    );
    return 'silent';
  });
  server = made.server;
  await assert.rejects(made.kernel.execute('import time; time.sleep(30)'), (error: Error) => {
    assert.ok(error instanceof KernelDiedError);
    assert.match(error.message, /^The kernel on lab was restarted from the server's side/);
    return true;
  });
});

test('a kernel that shows neither an end nor that it goes on: the run is told KeyboardInterrupt once the wait is over', BOUNDED, async () => {
  const { kernel, server } = await kernelWith(() => 'silent', { endedThereWaitMs: 50 });
  const result = await kernel.execute('import time; time.sleep(30)');
  assert.equal(result.error?.ename, 'KeyboardInterrupt');
  assert.equal(server.transport.probes.length, 1);
  assert.equal(server.transport.abandoned.length, 1, 'the unanswered probe is let go');
});
