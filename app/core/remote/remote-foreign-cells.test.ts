/**
 * A kernel on a Jupyter server that another client uses too (JupyterLab in a browser, say): its
 * cells reach our session over the same WebSocket as our own output, under another session's
 * parent, and are assembled into 'foreign-cell' events; our own runs make none.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ForeignCell } from '../kernel/execution/foreign-cells.js';
import { outputText } from '../kernel/execution/outputs.js';
import { withDeadline } from '../testing/wait-for.js';
import { JupyterApi } from './jupyter-api.js';
import { KernelChannel } from './kernel-channel.js';
import { RemoteKernel } from './remote-kernel.js';
import { RemoteServer } from './server-registry.js';
import { jupyterServerAvailable, startJupyterServer, type TestJupyterServer } from './testing/jupyter-server.js';
import { RemoteProvisioner } from './remote-provisioner.js';
import { KernelSupervisor } from '../kernel/kernel.js';

const skip = jupyterServerAvailable() || process.env.CI ? false : 'needs python3-jupyter-server (apt-get install python3-jupyter-server)';

describe('another client’s cells on a kernel on a Jupyter server', { skip }, () => {
  let server: TestJupyterServer;
  let kernel: RemoteKernel;
  let other: KernelChannel;
  before(async () => {
    server = await startJupyterServer();
    const remote = new RemoteServer('lab', server.url, server.token);
    kernel = await KernelSupervisor.start(new RemoteProvisioner(remote, { kind: 'start' }, { startTimeoutMs: 60_000 }));
    other = await KernelChannel.open(new JupyterApi(remote), kernel.provisioner.kernelId, randomUUID());
  });
  after(async () => {
    other?.close();
    await withDeadline(kernel?.shutdown() ?? Promise.resolve(), 'the kernel to shut down', 20_000).catch(() => undefined);
    await server?.close();
  });

  test('its cell is seen with its code, count and output; ours are not', { timeout: 60_000 }, async () => {
    const cells: ForeignCell[] = [];
    kernel.on('foreign-cell', (cell) => cells.push(cell));
    await kernel.execute('x = 20');
    const seen = new Promise<ForeignCell>((resolve) => kernel.once('foreign-cell', resolve));
    const { reply } = other.request('shell', 'execute_request', { code: 'y = x + 1\nprint(y)\ny * 2', silent: false, store_history: true, user_expressions: {}, allow_stdin: false, stop_on_error: true });
    await reply;
    const cell = await withDeadline(seen, 'the other client’s cell', 20_000);
    assert.equal(cell.code, 'y = x + 1\nprint(y)\ny * 2');
    assert.equal(cell.executionCount, 2);
    assert.equal(outputText(cell.result.outputs), '21\n42\n');
    assert.equal(kernel.executionCount, 2, 'the session’s count moved on with it');
    assert.ok(kernel.namesStale);
    const names = await kernel.refreshNames();
    assert.ok(names.has('y'), [...names.keys()].join(' '));
    assert.equal(kernel.namesStale, false);
    await kernel.execute('z = 1');
    assert.equal(cells.length, 1, 'our own runs and the names refresh made no foreign cell');
  });
});
