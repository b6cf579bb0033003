/** What the command tests share: captured output, and a temporary state folder as PYTHON_MCP_HOME. */
import { afterEach, beforeEach } from 'node:test';
import { TestHome } from '../../core/daemon/testing/daemon-processes.js';

export function capture() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
}

/** Inside a describe(): each test gets a fresh TestHome as the state folder; `current()` returns it. */
export function useTestHome(): { current(): TestHome } {
  let home: TestHome;
  let previous: string | undefined;
  beforeEach(() => {
    home = new TestHome();
    previous = process.env.PYTHON_MCP_HOME;
    process.env.PYTHON_MCP_HOME = home.dir;
  });
  afterEach(async () => {
    if (previous === undefined) delete process.env.PYTHON_MCP_HOME;
    else process.env.PYTHON_MCP_HOME = previous;
    await home.cleanup();
  });
  return { current: () => home };
}
