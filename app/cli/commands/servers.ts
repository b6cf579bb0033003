/**
 * `python-session-mcp servers` — the remote Jupyter servers sessions can run on.
 *
 *   servers [list] [--json] [--no-check]          each server, its kernelspecs and running kernels
 *   servers add <name> <url> [--token T | --token-stdin] [--no-check]
 *   servers remove <name>
 *
 * Tokens are stored owner-only in <state>/servers.json and never printed: not on success, not
 * in errors (which are redacted), not in --json. A token given on the command line is visible
 * to other users in `ps` while the command runs, so the help points to the environment
 * variable and standard input first.
 */
import { parseArgs } from 'node:util';
import { currentPlatform, resolveStateDir } from '../../core/daemon/state-paths.js';
import { describeServer, describeServers, formatOffers } from '../../core/remote/kernelspecs.js';
import { ServerRegistry, ServerRegistryError } from '../../core/remote/server-registry.js';

export const SERVERS_USAGE = `Usage: python-session-mcp servers [list] [--json] [--no-check]
       python-session-mcp servers add <name> <url> [--token <token> | --token-stdin] [--no-check]
       python-session-mcp servers remove <name>

Remote Jupyter servers (Jupyter Server or JupyterLab, a JupyterHub user server, Enterprise
Gateway) that sessions can run on: start_kernel(server="<name>") starts a kernel there, and
connect_to_kernel(connection_file="<name>:<kernel id>") attaches to one already running.

  list          each server with its kernelspecs and running kernels (asks each server,
                5 s at most; --no-check only lists what is saved)
  add           save a server, replacing one of the same name, then check it answers
  remove        forget a server (kernels running there are not touched)

The token is taken from, in order: --token, $PYTHON_MCP_SERVER_TOKEN, one line of standard
input with --token-stdin, or a "?token=…" in the URL. Prefer the variable or standard input:
a --token argument is visible to other users of this machine while the command runs. Tokens
are kept owner-only in <state>/servers.json and are never printed.

Options:
  --json        print JSON (tokens are never included)
  --no-check    do not contact the server
  -h, --help    show this help
`;

export interface ServersCommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Reads standard input to the end (for --token-stdin). */
  readStdin?: () => Promise<string>;
}

export interface ServersCommandOptions {
  env?: NodeJS.ProcessEnv;
  stateDir?: string;
}

const processIO: ServersCommandIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/** Exit status: 0 done, 1 failed (or a server could not be reached with `list`), 2 bad arguments. */
export async function serversCommand(argv: string[], io: ServersCommandIO = processIO, options: ServersCommandOptions = {}): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        token: { type: 'string' },
        'token-stdin': { type: 'boolean' },
        json: { type: 'boolean' },
        'no-check': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${SERVERS_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(SERVERS_USAGE);
    return 0;
  }
  const env = options.env ?? process.env;
  const registry = new ServerRegistry(options.stateDir ?? resolveStateDir({ ...currentPlatform(), env }));
  const [action = 'list', ...rest] = positionals;
  try {
    switch (action) {
      case 'list':
      case 'ls':
        if (rest.length) return usage(io, `"servers list" takes no names.`);
        return await list(registry, io, !values['no-check'], !!values.json);
      case 'add': {
        if (rest.length !== 2) return usage(io, 'servers add needs a name and a URL.');
        let token = values.token ?? env.PYTHON_MCP_SERVER_TOKEN;
        if (values['token-stdin']) {
          if (!io.readStdin) return usage(io, '--token-stdin cannot be used here.');
          token = (await io.readStdin()).split(/\r?\n/)[0]?.trim();
          if (!token) return usage(io, '--token-stdin read no token from standard input.');
        }
        return await add(registry, io, rest[0]!, rest[1]!, token || undefined, !values['no-check'], !!values.json);
      }
      case 'remove':
      case 'rm': {
        if (rest.length !== 1) return usage(io, 'servers remove needs one name.');
        const removed = registry.remove(rest[0]!);
        if (values.json) io.stdout(`${JSON.stringify({ removed, name: rest[0] })}\n`);
        else io.stdout(removed ? `Removed server "${rest[0]}". Kernels running there were not touched.\n` : `No server named "${rest[0]}"; nothing was changed.\n`);
        return removed ? 0 : 1;
      }
      default:
        return usage(io, `Unknown servers command "${action}".`);
    }
  } catch (error) {
    if (error instanceof ServerRegistryError) {
      io.stderr(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

function usage(io: ServersCommandIO, message: string): number {
  io.stderr(`${message}\n\n${SERVERS_USAGE}`);
  return 2;
}

async function list(registry: ServerRegistry, io: ServersCommandIO, check: boolean, json: boolean): Promise<number> {
  if (!check) {
    const servers = registry.list();
    if (json) io.stdout(`${JSON.stringify({ servers }, null, 2)}\n`);
    else io.stdout(servers.length ? `${servers.map((s) => `${s.name}  ${s.url}${s.hasToken ? '' : '  (no token)'}`).join('\n')}\n` : `${formatOffers([])}\n`);
    return 0;
  }
  const offers = await describeServers(registry);
  io.stdout(json ? `${JSON.stringify({ servers: offers }, null, 2)}\n` : `${formatOffers(offers)}\n`);
  return offers.every((o) => o.reachable) ? 0 : 1;
}

async function add(registry: ServerRegistry, io: ServersCommandIO, name: string, url: string, token: string | undefined, check: boolean, json: boolean): Promise<number> {
  const { server, replaced } = registry.add({ name, url, token });
  const saved = `${replaced ? 'Updated' : 'Added'} server "${server.name}" at ${server.url} (${server.hasToken ? 'token saved, owner-only' : 'no token'}) in ${registry.file}.`;
  if (!check) {
    io.stdout(json ? `${JSON.stringify({ server, replaced })}\n` : `${saved}\n`);
    return 0;
  }
  const offer = await describeServer(server);
  if (json) {
    io.stdout(`${JSON.stringify({ server, replaced, check: offer }, null, 2)}\n`);
    return 0;
  }
  io.stdout(`${saved}\n`);
  if (offer.reachable) {
    const specs = offer.kernelspecs.map((s) => `${s.name}${s.name === offer.defaultKernel ? ' (default)' : ''}`).join(', ');
    io.stdout(`It answers: kernelspecs ${specs || 'none'}; ${offer.kernels.length} kernel${offer.kernels.length === 1 ? '' : 's'} running. Start a session there with start_kernel(server="${server.name}").\n`);
  } else {
    // Saved all the same: a server is often added before it is started.
    io.stderr(`Saved, but it does not answer yet: ${offer.error}\n`);
  }
  return 0;
}
