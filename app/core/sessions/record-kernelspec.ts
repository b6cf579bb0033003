/**
 * The kernelspec and language_info an exported notebook names: those of the interpreter that ran
 * the session. Jupyter resolves a notebook's kernel by kernelspec name, so the name is that of an
 * installed kernelspec launching this interpreter when there is one; otherwise `python3`, the name
 * every Jupyter knows, with the interpreter named in the display name.
 */
import { readFile, readdir, realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { kernelspecDirs } from '../kernel/kernelspec.js';
import type { NotebookKernelspec } from './record-plan.js';

async function samePath(a: string, b: string): Promise<boolean> {
  if (a === b) return true;
  try {
    return (await realpath(a)) === (await realpath(b));
  } catch {
    return false;
  }
}

/** Installed kernelspecs whose argv[0] is `interpreter`, `python3` first. */
async function kernelspecsLaunching(interpreter: string, env: NodeJS.ProcessEnv): Promise<NotebookKernelspec[]> {
  const found: NotebookKernelspec[] = [];
  const seen = new Set<string>();
  for (const dir of kernelspecDirs(env)) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (seen.has(name)) continue; // the first folder that has a name is the one Jupyter uses
      try {
        const spec = JSON.parse(await readFile(join(dir, name, 'kernel.json'), 'utf8')) as { argv?: unknown[]; display_name?: unknown; language?: unknown };
        seen.add(name);
        const program = Array.isArray(spec.argv) ? String(spec.argv[0] ?? '') : '';
        // A bare "python3" is whatever PATH finds when Jupyter starts it: not known to be this one.
        if (isAbsolute(program) && (await samePath(program, interpreter))) {
          found.push({ name, display_name: String(spec.display_name ?? name), language: String(spec.language ?? 'python') });
        }
      } catch {
        /* not a kernelspec */
      }
    }
  }
  return found.sort((a, b) => Number(b.name === 'python3') - Number(a.name === 'python3'));
}

export async function kernelspecFor(interpreter: string | undefined, version: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<NotebookKernelspec> {
  if (interpreter) {
    const [match] = await kernelspecsLaunching(interpreter, env);
    if (match) return match;
  }
  const major = version?.split('.').slice(0, 2).join('.');
  return { name: 'python3', display_name: `Python ${major ?? '3'}${interpreter ? ` (${interpreter})` : ''}`, language: 'python' };
}

/** What ipykernel reports as language_info, for a log read from disk (no kernel to ask). */
export function pythonLanguageInfo(version: string | undefined): Record<string, unknown> {
  return {
    name: 'python',
    ...(version ? { version } : {}),
    mimetype: 'text/x-python',
    file_extension: '.py',
    codemirror_mode: { name: 'ipython', version: 3 },
    pygments_lexer: 'ipython3',
    nbconvert_exporter: 'python',
  };
}
