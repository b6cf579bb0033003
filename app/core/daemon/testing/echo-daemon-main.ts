/**
 * `node echo-daemon-main.js serve [--background]`: the real `serve` path (serveDaemon) over the
 * test echo server instead of the real tools, for tests that need daemon processes.
 * TEST_DAEMON_START_DELAY_MS makes creating the services slow, to widen start-up races.
 */
import { serveDaemon } from '../serve-daemon.js';
import { resolveStateDir } from '../state-paths.js';
import { createEchoMcpServer, createTestServices, recordTestEvent } from './echo-server.js';

const [command, ...rest] = process.argv.slice(2);
if (command !== 'serve') {
  process.stderr.write(`echo-daemon-main: expected "serve", got ${JSON.stringify(command)}\n`);
  process.exit(2);
}
const stateDir = resolveStateDir();
// boot/exit pairs let a test count this state folder's daemon processes, losers of a race included.
recordTestEvent(stateDir, 'boot');
process.on('exit', () => recordTestEvent(stateDir, 'exit'));
const delay = Number(process.env.TEST_DAEMON_START_DELAY_MS ?? 0);
const code = await serveDaemon({
  background: rest.includes('--background'),
  stateDir,
  services: () => createTestServices(stateDir, delay),
  createMcpServer: createEchoMcpServer,
  onStarted: () => recordTestEvent(stateDir, 'started'),
});
process.exit(code);
