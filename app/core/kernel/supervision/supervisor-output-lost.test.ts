/**
 * The supervisor's policy for a run whose reply came but none of its output (a Jupyter server's
 * relay that stopped passing iopub, as after a restart done through the server): the run fails
 * with the provisioner's account instead of waiting for an idle that will never come. Pure logic
 * over a scripted transport; the same path against a real server is in remote-kernel.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createMessage, type JsonObject } from '../../wire/index.js';
import { ConnectionLostError } from './kernel-errors.js';
import { KernelSupervisor } from './supervisor.js';
import { OneTransportProvisioner } from '../../testing/one-transport-provisioner.js';
import type { KernelTransport, RequestChannel, SentRequest, TransportEvents } from '../messaging/transport.js';

/** Replies to every request at once and never publishes anything on iopub. */
class SilentRelay extends EventEmitter<TransportEvents> implements KernelTransport {
  readonly isOpen = true;
  readonly session = 'client';
  readonly badSignatures = 0;
  readonly outputWatchdogMs = 20;

  request(_channel: RequestChannel, msgType: string, _content: JsonObject, beforeSend?: (msgId: string) => void): SentRequest {
    const request = createMessage(msgType, 'client', {});
    beforeSend?.(request.header.msg_id);
    const reply = createMessage(msgType.replace('_request', '_reply'), 'kernel', { status: 'ok', execution_count: 1 }, request.header);
    return { msgId: request.header.msg_id, reply: Promise.resolve(reply) };
  }

  onParent(): () => void {
    return () => undefined;
  }

  abandon(): void {}

  close(): void {}
}

test('a reply whose output never comes fails the run with the provisioner’s account, whichever Incarnation object it ran on', { timeout: 10_000 }, async () => {
  // Hands out a new Incarnation object for the same transport at every call, as RemoteProvisioner does.
  const provisioner = new OneTransportProvisioner(new SilentRelay(), 'relay', false);
  const supervisor = await KernelSupervisor.start(provisioner);
  await assert.rejects(supervisor.execute("print('relayed')"), (error: Error) => {
    assert.ok(error instanceof ConnectionLostError);
    assert.equal(error.message, "The Jupyter server relay (http://127.0.0.1:1) stopped relaying the kernel's output: the code ran (its reply came) but what it printed or displayed did not arrive. Python Session is reconnecting; run it again if you need to see its output.");
    return true;
  });
  assert.equal(provisioner.lost.length, 1, 'the provisioner was told, so it can reconnect');
  // The next run is not stuck behind the lost one.
  await assert.rejects(supervisor.execute('1 + 1'), ConnectionLostError);
  assert.equal(provisioner.lost.length, 2);
});
