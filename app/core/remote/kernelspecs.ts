/**
 * What each remote server offers, for list_interpreters, the panel and `servers list`: its
 * kernelspecs (what start_kernel(server=…, kernel_name=…) can start) and the kernels already
 * running there (what connect_to_kernel("<server>:<id>") can attach to). Servers are asked in
 * parallel with a short time limit, so one that is down costs seconds, not the whole listing.
 * Also the check before a start: the kernelspec asked for exists there and runs Python.
 */
import { JupyterApi, RemoteServerError, type RemoteKernelModel, type RemoteKernelSpec } from './jupyter-api.js';
import type { RemoteServer, RemoteServerView, ServerRegistry } from './server-registry.js';

export interface RemoteServerOffer {
  server: RemoteServerView;
  /** False when the server could not be asked; `error` says why. */
  reachable: boolean;
  error: string | null;
  defaultKernel: string | null;
  kernelspecs: RemoteKernelSpec[];
  kernels: RemoteKernelModel[];
  /** Why running kernels are not listed, when the server refuses that alone. */
  kernelsHidden: string | null;
}

export async function describeServer(server: RemoteServer, timeoutMs = 5000): Promise<RemoteServerOffer> {
  const api = new JupyterApi(server, { requestTimeoutMs: timeoutMs });
  const [specs, kernels] = await Promise.allSettled([api.kernelSpecs(), api.kernels()]);
  if (specs.status === 'rejected') {
    return { server: server.toJSON(), reachable: false, error: (specs.reason as Error).message, defaultKernel: null, kernelspecs: [], kernels: [], kernelsHidden: null };
  }
  let hidden: string | null = null;
  if (kernels.status === 'rejected') {
    // Enterprise Gateway refuses to list kernels unless EG_LIST_KERNELS=true, while it serves
    // kernelspecs with the same token: the server is fine, attaching needs the id from elsewhere.
    const error = kernels.reason as Error;
    if (!(error instanceof RemoteServerError && (error.kind === 'auth' || error.kind === 'not-found'))) {
      return { server: server.toJSON(), reachable: false, error: error.message, defaultKernel: null, kernelspecs: [], kernels: [], kernelsHidden: null };
    }
    hidden = 'the server does not list its running kernels (on Enterprise Gateway, EG_LIST_KERNELS=true allows it)';
  }
  return {
    server: server.toJSON(),
    reachable: true,
    error: null,
    defaultKernel: specs.value.defaultName,
    kernelspecs: specs.value.specs,
    kernels: kernels.status === 'fulfilled' ? kernels.value : [],
    kernelsHidden: hidden,
  };
}

export async function describeServers(registry: ServerRegistry, timeoutMs = 5000): Promise<RemoteServerOffer[]> {
  return Promise.all(registry.servers().map((s) => describeServer(s, timeoutMs)));
}

/** The offers as text, one block per server. */
export function formatOffers(offers: RemoteServerOffer[]): string {
  if (offers.length === 0) return 'No remote Jupyter servers. Add one with `python-session-mcp servers add <name> <url> --token <token>`.';
  return offers
    .map((o) => {
      const head = `${o.server.name}  ${o.server.url}${o.server.hasToken ? '' : '  (no token)'}`;
      if (!o.reachable) return `${head}\n  unreachable: ${o.error}`;
      const specs = o.kernelspecs.map((s) => `  kernelspec ${s.name.padEnd(16)} ${s.displayName} [${s.language}]${s.name === o.defaultKernel ? ' (default)' : ''}`);
      const kernels = o.kernels.map(
        (k) => `  running    ${o.server.name}:${k.id}  ${k.name}, ${k.execution_state ?? '?'}, ${k.connections ?? 0} connection${k.connections === 1 ? '' : 's'}${k.last_activity ? `, last active ${k.last_activity}` : ''}`,
      );
      return [head, ...(specs.length ? specs : ['  no kernelspecs']), ...kernels, ...(o.kernelsHidden ? [`  (${o.kernelsHidden})`] : [])].join('\n');
    })
    .join('\n');
}

/**
 * A kernelspec the server does not have, or one for another language (the server's default may
 * be R or Julia), fails before anything starts, listing the ones it has.
 */
export async function checkKernelSpec(api: JupyterApi, name: string | undefined): Promise<void> {
  const { defaultName, specs } = await api.kernelSpecs();
  const wanted = name ?? defaultName;
  const spec = specs.find((s) => s.name === wanted);
  const listing = specs.length ? `It has: ${specs.map((s) => `${s.name} (${s.displayName}, ${s.language})`).join(', ')}.` : 'It lists none.';
  if (!spec) {
    if (!name) return; // no default named: the server picks, and the kernel_info check below still applies
    throw new RemoteServerError(`The Jupyter server ${api.server.label} has no kernelspec "${name}". ${listing}`, 'not-found', 404);
  }
  if (spec.language.toLowerCase() !== 'python') {
    throw new RemoteServerError(
      `Kernelspec "${spec.name}" on ${api.server.label} runs ${spec.language}, not Python; Python Session works with Python kernels only. Choose one with kernel_name. ${listing}`,
      'unsupported',
      400,
    );
  }
}
