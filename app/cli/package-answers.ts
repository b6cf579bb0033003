/**
 * `npm run build`'s last step: writes what this version's MCP server answers to `initialize`,
 * `tools/list` and `server/discover` into the package (dist/mcp-answers.json), so a shim with no
 * daemon and no state folder behind it answers them at once (quick-answers.ts). The answers come
 * from the same code that builds each connection's server (describe-server.ts), which reads no
 * state folder, setting or environment: the file is the same on every machine.
 *
 * `node dist/app/cli/package-answers.js [path]` (default: the path the shim reads).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describeMcpServer } from '../core/mcp/describe-server.js';
import { packagedAnswersPath } from './quick-answers.js';

export async function writePackagedAnswers(path = packagedAnswersPath()): Promise<void> {
  // Readable by everyone who can run the package: nothing private is in it.
  writeFileSync(path, JSON.stringify(await describeMcpServer()) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writePackagedAnswers(process.argv[2] || undefined);
}
