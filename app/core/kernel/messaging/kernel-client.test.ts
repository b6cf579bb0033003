/** The client against a scripted peer over real ZeroMQ: forged messages are dropped and counted. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import * as zmq from 'zeromq';
import { createMessage, decodeMessage, encodeMessage, Signer, type JupyterMessage } from '../../wire/index.js';
import { newKey, type ConnectionInfo } from './connection-info.js';
import { KernelClient } from './kernel-client.js';
import { nextEvent, waitFor } from '../../testing/wait-for.js';
import type { InputRequest } from './transport.js';

async function bindRandom<S extends zmq.Socket>(socket: S): Promise<number> {
  await socket.bind('tcp://127.0.0.1:*');
  return Number(new URL(socket.lastEndpoint!.replace('tcp://', 'http://')).port);
}

test('replies and iopub messages with a bad signature are never acted on', async () => {
  const key = newKey();
  const signer = new Signer(Buffer.from(key));
  const forger = new Signer(Buffer.from(newKey()));
  const shell = new zmq.Router({ linger: 0 });
  // An XPUB hears the client's subscription, so the forged iopub message is sent only once it can arrive.
  const iopub = new zmq.XPublisher({ linger: 0 });
  const others = [new zmq.Router({ linger: 0 }), new zmq.Router({ linger: 0 }), new zmq.Reply({ linger: 0 })];
  const info: ConnectionInfo = {
    transport: 'tcp',
    ip: '127.0.0.1',
    shell_port: await bindRandom(shell),
    iopub_port: await bindRandom(iopub),
    stdin_port: await bindRandom(others[0]),
    control_port: await bindRandom(others[1]),
    hb_port: await bindRandom(others[2]),
    key,
    signature_scheme: 'hmac-sha256',
  };
  const client = new KernelClient(info);
  try {
    const seen: string[] = [];
    const { msgId, reply } = client.request('shell', 'execute_request', { code: '1' }, (id) =>
      client.onParent(id, (message) => seen.push(message.header.msg_type)),
    );
    const [identity, ...rest] = await shell.receive();
    const request = decodeMessage([identity, ...rest], signer);
    assert.ok(request.ok, 'our request is signed with the connection key');
    assert.equal(request.message.header.msg_id, msgId);

    const respond = (type: string, content: Record<string, unknown>, by: Signer): Buffer[] => {
      const message = createMessage(type, 'kernel', content, request.message.header) as JupyterMessage;
      message.identities = [identity];
      return encodeMessage(message, by);
    };
    let settled = false;
    void reply.then(() => (settled = true));
    const [subscription] = await iopub.receive();
    assert.equal(subscription[0], 1, 'the client subscribed to iopub');
    await iopub.send(respond('stream', { name: 'stdout', text: 'forged' }, forger).slice(1));
    await shell.send(respond('execute_reply', { status: 'ok', forged: true }, forger));
    // Both forged messages have been received and judged before anything is said about them.
    await waitFor('both forged messages to be counted', () => client.badSignatures === 2);
    assert.equal(settled, false, 'a forged reply does not complete the request');
    assert.deepEqual(seen, [], 'a forged iopub message is not routed');

    // Tampering with a properly signed message is caught too.
    const tampered = respond('execute_reply', { status: 'ok' }, signer);
    tampered[tampered.length - 1] = Buffer.from('{"status":"ok","tampered":true}');
    await shell.send(tampered);
    await waitFor('the tampered reply to be counted', () => client.badSignatures === 3);
    assert.equal(settled, false, 'a tampered reply does not complete the request');

    await shell.send(respond('execute_reply', { status: 'ok', genuine: true }, signer));
    const genuine = await reply;
    assert.equal(genuine.content.genuine, true);
  } finally {
    client.close();
    for (const socket of [shell, iopub, ...others]) socket.close();
  }
});

test('ready means a question can reach us: waitForReady waits for the stdin socket, which connects on its own', async () => {
  // The kernel sends input_request to our routing id on its stdin ROUTER, which cannot route to a
  // peer not yet connected. Here the client's first stdin connection is dropped before it is a
  // ZeroMQ connection (a kernel still starting), so its stdin socket retries ~100 ms later, while
  // shell and iopub are up and the kernel answers at once.
  const key = newKey();
  const signer = new Signer(Buffer.from(key));
  const shell = new zmq.Router({ linger: 0 });
  const iopub = new zmq.XPublisher({ linger: 0 });
  const stdin = new zmq.Router({ linger: 0 }); // as a kernel's: what it cannot route, it drops
  const others = [new zmq.Router({ linger: 0 }), new zmq.Reply({ linger: 0 })];
  const early = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
  const stdinPort = (early.address() as AddressInfo).port;
  const firstTry = new Promise<void>((resolve) => early.once('connection', () => resolve()));
  const info: ConnectionInfo = {
    transport: 'tcp',
    ip: '127.0.0.1',
    shell_port: await bindRandom(shell),
    iopub_port: await bindRandom(iopub),
    stdin_port: stdinPort,
    control_port: await bindRandom(others[0]),
    hb_port: await bindRandom(others[1]),
    key,
    signature_scheme: 'hmac-sha256',
  };
  const client = new KernelClient(info);
  let answering: Promise<unknown> = Promise.resolve();
  try {
    const asked = nextEvent<[InputRequest]>(client, 'input', 'the question asked right after ready', 5000);
    const ready = client.waitForReady(10_000);
    await firstTry;
    await new Promise<void>((resolve) => early.close(() => resolve()));
    await stdin.bind(`tcp://127.0.0.1:${stdinPort}`);
    const [subscription] = await iopub.receive();
    assert.equal(subscription[0], 1, 'the client subscribed to iopub');
    // The kernel answers every kernel_info_request on shell and iopub, as a kernel does.
    const respond = (to: JupyterMessage, type: string, content: Record<string, unknown>): Buffer[] => {
      const message = createMessage(type, 'kernel', content, to.header) as JupyterMessage;
      message.identities = to.identities;
      return encodeMessage(message, signer);
    };
    let lastRequest: JupyterMessage | undefined;
    answering = (async () => {
      for (;;) {
        const request = decodeMessage(await shell.receive(), signer);
        assert.ok(request.ok);
        lastRequest = request.message;
        await iopub.send(respond(request.message, 'status', { execution_state: 'idle' }).slice(1));
        await shell.send(respond(request.message, 'kernel_info_reply', { status: 'ok', protocol_version: '5.3' }));
      }
    })().catch(() => undefined); // ends when the sockets close
    await ready;
    // At once, as code that calls input() first thing does.
    await stdin.send(respond(lastRequest!, 'input_request', { prompt: 'Your name? ', password: false }));
    assert.equal((await asked)[0].prompt, 'Your name? ');
  } finally {
    client.close();
    early.close();
    for (const socket of [shell, iopub, stdin, ...others]) socket.close();
    await answering;
  }
});
