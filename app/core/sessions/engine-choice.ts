/**
 * Which engine runs a new local session: ipykernel where the interpreter has it (Jupyter's
 * extras: magics, connect_to_kernel, sharing with Jupyter and Spyder), else the built-in worker,
 * which needs nothing installed. PYTHON_MCP_ENGINE forces one. Pure: the caller probes.
 */
export type Engine = 'ipykernel' | 'worker';

export interface EngineChoice {
  engine: Engine;
  /** Why, in words. */
  reason: string;
  /** For a worker session: what installing ipykernel would add, and the command for this interpreter. */
  upgrade?: string;
}

export class EngineChoiceError extends Error {}

/** What ipykernel adds over the worker, said wherever the worker is in use. */
export const IPYKERNEL_ADDS = 'IPython magics (%timeit, !pip), attaching with connect_to_kernel, and sharing the kernel with Jupyter or Spyder';

export function chooseEngine(options: { hasIpykernel: boolean; forced?: string; installCommand: string }): EngineChoice {
  const forced = options.forced?.trim().toLowerCase();
  const upgrade = `Installing ipykernel would add ${IPYKERNEL_ADDS}: ${options.installCommand}`;
  if (forced) {
    if (forced === 'worker') return { engine: 'worker', reason: 'PYTHON_MCP_ENGINE=worker', ...(options.hasIpykernel ? {} : { upgrade }) };
    if (forced !== 'ipykernel') throw new EngineChoiceError(`PYTHON_MCP_ENGINE is "${options.forced}"; it takes "ipykernel" or "worker".`);
    if (!options.hasIpykernel) throw new EngineChoiceError(`PYTHON_MCP_ENGINE=ipykernel, but this interpreter has no ipykernel. Install it with:\n  ${options.installCommand}\nor unset PYTHON_MCP_ENGINE to use the built-in worker.`);
    return { engine: 'ipykernel', reason: 'PYTHON_MCP_ENGINE=ipykernel' };
  }
  if (options.hasIpykernel) return { engine: 'ipykernel', reason: 'the interpreter has ipykernel' };
  return { engine: 'worker', reason: 'the interpreter has no ipykernel, so the built-in worker runs the code (nothing was installed)', upgrade };
}

/** Only a forced ipykernel makes an interpreter without it unusable (discovery then passes it over). */
export function ipykernelRequired(env: NodeJS.ProcessEnv): boolean {
  return env.PYTHON_MCP_ENGINE?.trim().toLowerCase() === 'ipykernel';
}

/** The engine an interpreter would run on, for listings: undefined `hasIpykernel` means not yet known. */
export function engineLabel(hasIpykernel: boolean | undefined, forced?: string): string {
  const f = forced?.trim().toLowerCase();
  if (f === 'worker') return 'worker';
  if (hasIpykernel === undefined) return f === 'ipykernel' ? 'ipykernel?' : 'ipykernel or worker';
  return hasIpykernel ? 'ipykernel' : f === 'ipykernel' ? 'none (no ipykernel)' : 'worker';
}
