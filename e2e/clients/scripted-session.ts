/**
 * One scripted client session, as a program: `node scripted-session.js <spec.json>`.
 *
 * It serves the stand-in model API on 127.0.0.1, starts the client pointed at it, waits for the
 * client to end, stops the Python Session daemon the client's MCP server started, and leaves a
 * recording (JSON lines) of what the client forwarded to the model.
 *
 * Why a program of its own: the tests run it inside `unshare -rn` where that works, so the client,
 * its MCP server, the daemon and the kernels all live in a network namespace with loopback only.
 * A server in the test process (outside the namespace) could not be reached from there, so the
 * stand-in lives in the namespace, in this process, next to the client; the recording goes
 * through the file system, which the namespace shares.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { anthropicStandIn } from './anthropic-stand-in.js';
import type { RecordLine } from './model-script.js';
import { responsesStandIn } from './responses-stand-in.js';
import { PORT_PLACEHOLDER, type SessionSpec } from './session-spec.js';

function fill(text: string, port: number): string {
  return text.split(PORT_PLACEHOLDER).join(String(port));
}

async function main(specPath: string): Promise<void> {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as SessionSpec;
  const started = Date.now();
  const record = (line: RecordLine) => appendFileSync(spec.recordingPath, `${JSON.stringify({ ...line, at: Date.now() - started })}\n`);
  writeFileSync(spec.recordingPath, '');

  if (spec.loopbackUp) {
    const up = spawnSync('ip', ['link', 'set', 'lo', 'up'], { encoding: 'utf8' });
    if (up.status !== 0) throw new Error(`could not bring loopback up in the namespace: ${up.stderr}`);
  }

  const handle = spec.api === 'anthropic' ? anthropicStandIn(spec.script, record) : responsesStandIn(spec.script, record);
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: Error) => {
      record({ kind: 'note', text: `stand-in failed on ${request.method} ${request.url}: ${error.stack ?? error}` });
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  for (const file of spec.files) {
    mkdirSync(dirname(file.path), { recursive: true });
    writeFileSync(file.path, fill(file.text, port));
  }
  const env = Object.fromEntries(Object.entries(spec.client.env).map(([k, v]) => [k, fill(v, port)]));
  const child = spawn(spec.client.command, spec.client.args.map((a) => fill(a, port)), {
    cwd: spec.client.cwd,
    env,
    // Its own process group, so a client that hangs is ended with everything it started.
    detached: true,
    stdio: ['ignore', openSync(spec.client.stdoutPath, 'w'), openSync(spec.client.stderrPath, 'w')],
  });
  record({ kind: 'client-start' });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, spec.client.timeoutMs);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  clearTimeout(timer);
  record({ kind: 'client-exit', code, signal, timedOut });

  const stop = spawnSync(spec.cleanup.command, spec.cleanup.args, { env: spec.cleanup.env, encoding: 'utf8', timeout: 30_000 });
  if (stop.status !== 0) record({ kind: 'note', text: `cleanup exited ${stop.status}: ${stop.stderr}` });
  server.close();
  server.closeAllConnections();
}

main(process.argv[2]).catch((error: Error) => {
  console.error(error.stack ?? error);
  process.exit(1);
});
