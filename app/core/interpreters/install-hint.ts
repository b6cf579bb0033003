/**
 * The exact command that installs ipykernel into a given interpreter: conda for conda envs
 * (by name when conda can find it by name), uv for uv-made venvs (they have no pip), apt for
 * Debian's system Python, pip otherwise — with PEP 668's escape hatch only where it applies.
 */
import type { Interpreter } from './types.js';

/**
 * Quotes a path for a shell when it needs it (spaces are common on Windows). Backslashes stay
 * as they are: cmd and PowerShell take them literally, and so does sh inside double quotes
 * unless they precede one of the characters escaped here.
 */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./\\-]+$/.test(s) ? s : `"${s.replace(/(["$`])/g, '\\$1')}"`;
}

export function ipykernelInstallCommand(interp: Interpreter | string): string {
  if (typeof interp === 'string') return `${shellQuote(interp)} -m pip install ipykernel`;
  const py = shellQuote(interp.path);
  switch (interp.kind) {
    case 'conda-base':
    case 'conda-env': {
      // micromamba has no default channel configured.
      const tool = interp.manager === 'micromamba' ? 'micromamba' : 'conda';
      const channel = tool === 'micromamba' ? ' -c conda-forge' : '';
      const target = interp.condaEnvName ? `-n ${shellQuote(interp.condaEnvName)}` : `-p ${shellQuote(interp.prefix)}`;
      return `${tool} install ${target}${channel} ipykernel`;
    }
    case 'venv':
      // uv venvs are created without pip.
      return interp.manager === 'uv' ? `uv pip install --python ${py} ipykernel` : `${py} -m pip install ipykernel`;
    default:
      if (interp.externallyManaged) {
        if (interp.debianPackaging) return 'sudo apt install python3-ipykernel';
        if (interp.kind === 'uv') return `uv pip install --python ${py} --break-system-packages ipykernel`;
        return `${py} -m pip install --user --break-system-packages ipykernel`;
      }
      return `${py} -m pip install ipykernel`;
  }
}
