/**
 * `node wire-tee.js <log> <command> [args…]`: runs the MCP server command with stdio passed
 * through, and writes every line each way to <log> as JSON lines (`{"from":"client"|"server",
 * "message":…}`), so a test can say which protocol revision a real client spoke. Exits when the
 * server does, with its code; the client closing stdin closes the server's.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';

const [log, command, ...args] = process.argv.slice(2);
writeFileSync(log, '');

function tap(from: 'client' | 'server') {
  let pending = '';
  return (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        message = { unparsed: line.slice(0, 2000) };
      }
      appendFileSync(log, JSON.stringify({ from, message }) + '\n');
    }
  };
}

const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const fromClient = tap('client');
const fromServer = tap('server');
process.stdin.on('data', (chunk: Buffer) => {
  fromClient(chunk);
  server.stdin.write(chunk);
});
process.stdin.on('end', () => server.stdin.end());
server.stdout.on('data', (chunk: Buffer) => {
  fromServer(chunk);
  process.stdout.write(chunk);
});
server.stdin.on('error', () => undefined); // the server left first; its exit ends us
server.on('exit', (code, signal) => process.stdout.write('', () => process.exit(code ?? (signal ? 1 : 0))));
