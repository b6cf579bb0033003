/**
 * The 2026-07-28 layer over an SDK 1.x server, per connection: what a stateless client gets that
 * a handshake client does not, over the SDK's in-memory transport with the real server class.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../testing/wait-for.js';
import { META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SUBSCRIPTION_ID } from './revisions.js';
import { newMcpServer } from './server.js';

type Message = { id?: string | number; method?: string; params?: any; result?: any; error?: any };

async function connected() {
  const server = newMcpServer();
  server.registerTool('first', { description: 'the first tool' }, () => ({ content: [{ type: 'text', text: 'one' }] }));
  const [client, theirs] = InMemoryTransport.createLinkedPair();
  const received: Message[] = [];
  client.onmessage = (message: JSONRPCMessage) => void received.push(message as Message);
  await client.start();
  await server.connect(theirs);
  const send = (message: object) => client.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  const answer = (id: string | number) => waitFor(`the answer to ${id}`, () => received.find((m) => m.id === id && m.method === undefined));
  return { server, received, send, answer };
}

const meta = { [META_PROTOCOL_VERSION]: '2026-07-28', [META_CLIENT_INFO]: { name: 'stateless-client', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };

test('a stateless client: tools/list_changed only on its tools subscription, tagged; its name taken from _meta', async () => {
  const { server, received, send, answer } = await connected();
  let known = 0;
  server.onStatelessClient = () => known++;
  await send({ id: 'l-tools', method: 'subscriptions/listen', params: { _meta: meta, notifications: { toolsListChanged: true } } });
  await send({ id: 'l-none', method: 'subscriptions/listen', params: { _meta: meta, notifications: { resourcesListChanged: true } } });
  await send({ id: 1, method: 'tools/list', params: { _meta: meta } });
  assert.equal((await answer(1)).result.resultType, 'complete');
  const acks = received.filter((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(acks.map((m) => m.params), [
    { notifications: { toolsListChanged: true }, _meta: { [META_SUBSCRIPTION_ID]: 'l-tools' } },
    { notifications: {}, _meta: { [META_SUBSCRIPTION_ID]: 'l-none' } },
  ]);
  assert.equal(server.statelessClientName(), 'stateless-client');
  assert.equal(known, 1, 'told once');

  server.registerTool('second', { description: 'added later' }, () => ({ content: [] }));
  const changes = () => received.filter((m) => m.method === 'notifications/tools/list_changed');
  await waitFor('the change', () => changes().length > 0);
  assert.deepEqual(changes().map((m) => m.params), [{ _meta: { [META_SUBSCRIPTION_ID]: 'l-tools' } }], 'tagged, on the one stream that asked');

  await send({ method: 'notifications/cancelled', params: { requestId: 'l-tools' } });
  await send({ id: 2, method: 'tools/list', params: { _meta: meta } });
  await answer(2);
  server.registerTool('third', { description: 'after the stream closed' }, () => ({ content: [] }));
  await send({ id: 3, method: 'tools/list', params: { _meta: meta } });
  assert.equal((await answer(3)).result.tools.length, 3);
  assert.equal(changes().length, 1, 'no stream asks any more: nothing sent');
  await server.close();
});

test('a handshake client: initialize as before, no resultType, and tools/list_changed as the SDK sends it', async () => {
  const { server, received, send, answer } = await connected();
  await send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
  assert.equal((await answer(0)).result.protocolVersion, '2025-11-25');
  await send({ method: 'notifications/initialized' });
  await send({ id: 1, method: 'tools/list', params: {} });
  assert.equal((await answer(1)).result.resultType, undefined);
  server.registerTool('second', { description: 'added later' }, () => ({ content: [] }));
  const changed = await waitFor('the change', () => received.find((m) => m.method === 'notifications/tools/list_changed'));
  assert.equal(changed.params, undefined);
  await server.close();
});

test('server/discover answers what initialize does, with the caching hints and the server in _meta; an unknown version is refused', async () => {
  const { server, send, answer } = await connected();
  await send({ id: 'd', method: 'server/discover', params: { _meta: meta } });
  const discover = (await answer('d')).result;
  await send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
  const init = (await answer(0)).result;
  assert.deepEqual(discover.capabilities, init.capabilities);
  assert.equal(discover.instructions, init.instructions);
  assert.deepEqual(discover._meta['io.modelcontextprotocol/serverInfo'], init.serverInfo);
  assert.deepEqual(discover.supportedVersions, ['2026-07-28']);
  assert.equal(discover.resultType, 'complete');
  assert.deepEqual([discover.ttlMs, discover.cacheScope], [0, 'public']);
  await send({ id: 'x', method: 'tools/list', params: { _meta: { ...meta, [META_PROTOCOL_VERSION]: '2030-01-01' } } });
  const refused = await answer('x');
  assert.deepEqual(refused.error.code, -32022);
  assert.deepEqual(refused.error.data, { requested: '2030-01-01', supported: ['2026-07-28'] });
  await server.close();
});
