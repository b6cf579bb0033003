/**
 * The readiness handshake every transport shares: kernel_info_request, again and again, until
 * one is answered *and* an iopub message for one of them has come back. A reply alone does not
 * prove that output will reach us: a ZeroMQ SUB socket connects asynchronously (the first idle
 * can be published before our subscription lands), a kernel on a server may still be starting
 * (a request sent too early is lost), and a server's relay can pass replies but no output
 * (Jupyter Server 1.23 with a kernel it restarted on new ports). Runs would then wait forever.
 */
import type { JupyterMessage } from '../../wire/index.js';
import { TIMED_OUT, sleep, upTo } from '../../timers.js';
import type { KernelInfo, KernelTransport } from './transport.js';

export interface ReadinessOptions {
  timeoutMs: number;
  /** The first wait for a reply; it doubles up to maxIntervalMs. */
  firstIntervalMs: number;
  maxIntervalMs: number;
  /** Why to stop trying (the process exited), or null to go on. */
  stopped?: () => string | null;
  /** Replies without any output for this long mean the output does not reach us. */
  replyWithoutOutputMs?: number;
  /** Whether a message counts: one from a kernel process that is going away (restarted elsewhere) does not. */
  accept?: (message: JupyterMessage) => boolean;
}

export type ReadinessFailure = 'closed' | 'stopped' | 'timeout' | 'no-output';

export class ReadinessError extends Error {
  constructor(
    message: string,
    readonly kind: ReadinessFailure,
  ) {
    super(message);
  }
}

export async function awaitReady(transport: KernelTransport, options: ReadinessOptions): Promise<KernelInfo> {
  const deadline = Date.now() + options.timeoutMs;
  const ids = new Set<string>();
  let info: KernelInfo | null = null;
  let sawIopub = false;
  let repliedAt = 0;
  const accept = options.accept ?? (() => true);
  const seen = (message: JupyterMessage) => {
    if (ids.has(message.parent_header.msg_id ?? '') && accept(message)) sawIopub = true;
  };
  transport.on('iopub', seen);
  try {
    let interval = options.firstIntervalMs;
    while (!(info && sawIopub)) {
      if (!transport.isOpen) throw new ReadinessError('the connection was closed', 'closed');
      const stopped = options.stopped?.();
      if (stopped) throw new ReadinessError(stopped, 'stopped');
      if (Date.now() > deadline) throw new ReadinessError(`the kernel did not answer kernel_info_request within ${Math.round(options.timeoutMs / 1000)} s`, 'timeout');
      const { msgId, reply } = transport.request('shell', 'kernel_info_request', {}, (id) => ids.add(id));
      const got = await upTo(reply, interval);
      if (got !== TIMED_OUT && !info && accept(got)) {
        info = got.content as KernelInfo;
        repliedAt = Date.now();
      }
      if (got === TIMED_OUT) transport.abandon(msgId);
      if (info && !sawIopub && options.replyWithoutOutputMs !== undefined && Date.now() - repliedAt > options.replyWithoutOutputMs) {
        throw new ReadinessError('the kernel answers, but its output does not arrive', 'no-output');
      }
      if (info && !sawIopub) await sleep(Math.min(interval, 100));
      interval = Math.min(interval * 2, options.maxIntervalMs);
    }
    return info;
  } finally {
    transport.off('iopub', seen);
    for (const id of ids) transport.abandon(id);
  }
}
