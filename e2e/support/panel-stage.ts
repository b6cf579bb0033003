/**
 * The stage the panel's record tests act on: a daemon's services in this process, in a state
 * folder of the test's own, with its panel on loopback and one MCP client connected in memory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../../app/core/mcp/server.js';
import { createServices, type DaemonServices } from '../../app/core/services.js';
import { startPanelServer, type PanelServer } from '../../app/core/daemon/panel/server.js';
import { TEST_PYTHON } from '../../app/core/testing/test-python.js';

export interface PanelStage {
  stateDir: string;
  services: DaemonServices;
  panel: PanelServer;
  /** An MCP client named `<name>-client`. */
  client: Client;
  close(): Promise<void>;
}

export async function startPanelStage(name: string): Promise<PanelStage> {
  const stateDir = mkdtempSync(join(tmpdir(), `ps-${name}-`));
  const services = await createServices({ stateDir, env: { ...process.env, PYTHON_MCP_INTERPRETER: TEST_PYTHON } });
  const panel = await startPanelServer({ services, host: '127.0.0.1', port: 0, registration: { home: join(stateDir, 'home'), env: {} } });
  const server = createMcpServer(services, { id: name });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: `${name}-client`, version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    stateDir,
    services,
    panel,
    client,
    async close() {
      await client.close();
      await panel.close();
      await services.shutdown();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
