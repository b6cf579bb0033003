/**
 * A daemon's services and panel server in this process, beside a real Jupyter Server on
 * loopback: the stage of the panel's remote-server tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices, type DaemonServices } from '../../app/core/services.js';
import { startPanelServer, type PanelServer } from '../../app/core/daemon/panel/server.js';
import { startJupyterServer, type TestJupyterServer } from '../../app/core/remote/testing/jupyter-server.js';
import { TEST_PYTHON } from '../../app/core/testing/test-python.js';

export interface RemotePanelStage {
  stateDir: string;
  services: DaemonServices;
  panel: PanelServer;
  jupyter: TestJupyterServer;
  /** Ends the sessions (and the kernels they started on the server), the panel and the server; fails if the server was left with kernels. */
  close(): Promise<void>;
}

export async function startRemotePanelStage(prefix: string): Promise<RemotePanelStage> {
  const stateDir = mkdtempSync(join(tmpdir(), prefix));
  // No warm pool: these tests need no spare local kernel.
  const services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON, PYTHON_MCP_POOL_SIZE: '0' } });
  const panel = await startPanelServer({ services, host: '127.0.0.1', port: 0, registration: { home: join(stateDir, 'home'), env: {} } });
  const jupyter = await startJupyterServer();
  return {
    stateDir,
    services,
    panel,
    jupyter,
    async close() {
      try {
        await panel.close();
        await services.shutdown();
      } finally {
        await jupyter.close();
        rmSync(stateDir, { recursive: true, force: true });
      }
    },
  };
}
