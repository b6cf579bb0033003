/**
 * A kernel that keeps dying soon after it starts stops being replaced, and the caller is told
 * why with the last lines of its stderr. The interpreter here is a real ipykernel behind a
 * wrapper that prints a line to stderr and kills the kernel a few seconds after it starts.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelDiedError, KernelGaveUpError, KernelSupervisor, LocalProvisioner } from './kernel.js';
import { TEST_PYTHON, markChildProcesses } from '../testing/test-python.js';

const startedHere = markChildProcesses('restart-limit-test');
after(() => startedHere.allEnded());

test('a kernel that keeps dying at start is replaced up to the limit, then the caller is told why', { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ps-restart-limit-'));
  const interpreter = join(dir, 'dying-python');
  // exec keeps the pid: the background kill reaches the kernel itself once it has been up a moment.
  await writeFile(interpreter, `#!/bin/sh\necho "broken site setup: cannot load analysis.pth" >&2\n(sleep 5; kill -9 $$) &\nexec ${TEST_PYTHON} "$@"\n`);
  await chmod(interpreter, 0o755);
  const kernel = await KernelSupervisor.start(new LocalProvisioner({ interpreter, heartbeat: { intervalMs: 250, timeoutMs: 30_000 } }), { restartPolicy: { limit: 2, stableMs: 60_000 } });
  try {
    const deaths: KernelDiedError[] = [];
    const gaveUp = new Promise<KernelDiedError>((resolve) =>
      kernel.on('died', (error) => {
        deaths.push(error);
        if (!error.restarted) resolve(error);
      }),
    );
    const last = await gaveUp;
    assert.equal(deaths.length, 3, 'two replacements, then no more');
    assert.ok(deaths.slice(0, 2).every((d) => d.restarted && /A fresh kernel has been started/.test(d.message)));
    assert.ok(last instanceof KernelGaveUpError);
    assert.equal(kernel.state, 'dead');
    await assert.rejects(kernel.execute('1 + 1'), (error: Error) => {
      assert.ok(error instanceof KernelGaveUpError);
      assert.match(error.message, /^The Python kernel died: the kernel was ended by SIGKILL/);
      assert.match(error.message, /broken site setup: cannot load analysis\.pth/);
      assert.match(error.message, /It died 3 times within 60 s of starting, so it is not being replaced/);
      return true;
    });
  } finally {
    await kernel.shutdown();
  }
});
