/**
 * The shim as main.js runs it (no process.exit: it must end by itself once stdin closes), but
 * starting the test daemon (echo server) when none runs — unless PYTHON_SESSION_DAEMON_ENTRY
 * already names another entry. It answers nothing from the package's MCP answers, which describe
 * the real server.
 */
import { fileURLToPath } from 'node:url';
import { DAEMON_ENTRY_ENV, runShim } from '../shim.js';

process.env[DAEMON_ENTRY_ENV] ||= fileURLToPath(new URL('../../core/daemon/testing/echo-daemon-main.js', import.meta.url));
// The package's answers describe the real server, not the echo daemon's.
process.exitCode = await runShim({ packagedAnswers: null });
