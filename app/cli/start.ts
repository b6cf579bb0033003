#!/usr/bin/env node
/**
 * `npm start`: the tray app where Electron and a display exist; otherwise one line saying why,
 * then the daemon in the foreground (`serve`, which prints the panel's address).
 *
 * Both run as child processes with this terminal's input and output, and this process ends with
 * their exit code; a termination signal sent to it is passed on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { trayAvailability } from '../electron/electron-binary.js';

const TRAY_MAIN = fileURLToPath(new URL('../electron/main.js', import.meta.url));
const CLI = fileURLToPath(new URL('./main.js', import.meta.url));

let child: ChildProcess | null = null;

// Handlers first, before anything is printed or started: a signal that arrived between starting
// the child and listening for it would kill this process alone and leave the child running.
// Ctrl-C reaches the child by itself (same process group); a service manager's SIGTERM does not.
for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (child && child.exitCode === null) child.kill(signal);
    else process.exit(128 + constants.signals[signal]);
  });
}
process.on('SIGINT', () => {
  if (!child) process.exit(128 + constants.signals.SIGINT); // otherwise the child decides how to stop
});

function run(command: string, args: string[], env: NodeJS.ProcessEnv): void {
  child = spawn(command, args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    process.stderr.write(`python-session-mcp: could not start ${command}: ${error.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
  });
}

const availability = trayAvailability();
const extra = process.argv.slice(2);
if (availability.ok) {
  // The tray starts the daemon with this same Node rather than with Electron acting as Node.
  run(availability.binary, [TRAY_MAIN, ...extra], { ...process.env, PYTHON_SESSION_NODE: process.execPath });
} else {
  process.stdout.write(`${availability.reason}; starting the daemon without the tray.\n`);
  run(process.execPath, [CLI, 'serve', ...extra], process.env);
}
