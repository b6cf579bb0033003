/**
 * The one time an interpreter is run before a kernel: a short process printing its version,
 * platform and the versions of the packages sessions use, as JSON. Written to run on any
 * Python (2.7 included) so that an old one is reported as old rather than as broken.
 */
import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InterpreterError, type InterpreterErrorCode } from './errors.js';
import { getCachedProbe, putCachedProbe } from './probe-cache.js';
import type { Probe } from './types.js';

export const PROBE_PACKAGES = ['ipykernel', 'pandas', 'numpy', 'statsmodels', 'matplotlib', 'openpyxl', 'pyarrow'] as const;

// Packages are looked up with find_spec + importlib.metadata, never imported: importing pandas
// alone can take a second. A blank line precedes the JSON so a chatty sitecustomize cannot
// glue itself onto it.
export const PROBE_SCRIPT = `
import sys, json
try:
    import platform
    ver = platform.python_version(); impl = platform.python_implementation(); mach = platform.machine()
except Exception:
    ver = '.'.join([str(x) for x in sys.version_info[:3]]); impl = 'unknown'; mach = ''
out = {"version": ver, "implementation": impl, "platform": sys.platform + ("-" + mach if mach else ""),
       "executable": sys.executable, "prefix": sys.prefix, "packages": {}, "site": []}
try:
    from importlib import metadata as md
except Exception:
    try:
        import importlib_metadata as md
    except Exception:
        md = None
try:
    from importlib.util import find_spec
except Exception:
    find_spec = None
for n in ${JSON.stringify(PROBE_PACKAGES)}:
    v = None
    try:
        if find_spec is not None:
            present = find_spec(n) is not None
        else:
            import imp
            imp.find_module(n)
            present = True
    except Exception:
        present = False
    if present:
        v = "unknown"
        if md is not None:
            try:
                v = md.version(n)
            except Exception:
                pass
    out["packages"][n] = v
dirs = []
try:
    import site
    dirs = list(getattr(site, "getsitepackages", lambda: [])())
    if getattr(site, "ENABLE_USER_SITE", False):
        dirs.append(site.getusersitepackages())
except Exception:
    pass
for p in sys.path:
    if p and (p.endswith("site-packages") or p.endswith("dist-packages")) and p not in dirs:
        dirs.append(p)
out["site"] = dirs
sys.stdout.write("\\n" + json.dumps(out) + "\\n")
`;

export interface ProbeRunResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: string | null;
  /** errno of a failed spawn (ENOENT, EACCES, ENOEXEC, ...). */
  spawnError?: string;
  timedOut: boolean;
}

export type ProbeRunner = (exe: string, args: string[], opts: { timeoutMs: number }) => Promise<ProbeRunResult>;

export interface ProbeOptions {
  /** Default 15 s: a cold conda Python on Windows behind an antivirus can take several. */
  timeoutMs?: number;
  /** JSON file that keeps probes across restarts. */
  cacheFile?: string;
  /** Replaces the process runner (tests). */
  runner?: ProbeRunner;
  /** Ignore cached answers (still stores the new one). */
  refresh?: boolean;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 15_000;

const defaultRunner: ProbeRunner = (exe, args, { timeoutMs }) =>
  new Promise((resolve) => {
    execFile(
      exe,
      args,
      {
        timeout: timeoutMs,
        windowsHide: true,
        maxBuffer: 1 << 20,
        encoding: 'utf8',
        // Never the caller's cwd: a stray `json.py` there would shadow the stdlib.
        cwd: path.dirname(exe),
        env: { ...process.env, PYTHONIOENCODING: 'utf-8' },
      },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { killed?: boolean; signal?: string; code?: number | string }) | null;
        const spawnError = e && typeof e.code === 'string' ? e.code : undefined;
        resolve({
          stdout: String(stdout ?? ''),
          stderr: String(stderr ?? ''),
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          signal: e?.signal ?? null,
          spawnError,
          timedOut: Boolean(e?.killed && e.signal === 'SIGTERM' && !spawnError),
        });
      },
    );
  });

const inFlight = new Map<string, Promise<Probe>>();

function fail(exe: string, reason: string, code: InterpreterErrorCode): InterpreterError {
  return new InterpreterError(`${exe} is not a working Python: ${reason}`, { reason, code, interpreter: exe });
}

function lastLine(s: string): string {
  const lines = s.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  return lines[lines.length - 1] ?? '';
}

/** Turns the probe's output into a Probe, or an error saying what went wrong. */
export function parseProbeOutput(exe: string, r: ProbeRunResult, timeoutMs: number): Probe {
  if (r.spawnError) {
    const why: Record<string, [string, InterpreterErrorCode]> = {
      ENOENT: ['no such file', 'not-found'],
      EACCES: ['permission denied (not executable)', 'not-executable'],
      ENOEXEC: ['not a program this system can run', 'not-executable'],
      EISDIR: ['is a folder, not an executable', 'not-found'],
    };
    const [reason, code] = why[r.spawnError] ?? [`could not be started (${r.spawnError})`, 'not-executable'];
    throw fail(exe, reason, code);
  }
  if (r.timedOut) throw fail(exe, `did not answer within ${Math.round(timeoutMs / 100) / 10} s`, 'timeout');
  if (r.signal) throw fail(exe, `was killed by ${r.signal}`, 'probe-failed');
  if (r.code !== 0) {
    const detail = lastLine(r.stderr) || lastLine(r.stdout);
    throw fail(exe, `exited with code ${r.code}${detail ? `: ${detail}` : ''}`, 'probe-failed');
  }
  const line = r.stdout
    .split(/\r?\n/)
    .reverse()
    .find((l) => l.trim().startsWith('{'));
  let data: Record<string, unknown> | undefined;
  try {
    data = line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
  } catch {
    data = undefined;
  }
  if (!data || typeof data['version'] !== 'string') {
    const began = r.stdout.trim().slice(0, 80);
    throw fail(exe, `did not print the expected answer${began ? ` (output began: ${began})` : ' (no output)'}`, 'probe-failed');
  }
  const packages: Record<string, string | null> = {};
  const raw = (data['packages'] ?? {}) as Record<string, unknown>;
  for (const name of PROBE_PACKAGES) {
    const v = raw[name];
    packages[name] = typeof v === 'string' ? v : null;
  }
  return {
    path: exe,
    version: data['version'] as string,
    implementation: String(data['implementation'] ?? 'unknown'),
    platform: String(data['platform'] ?? ''),
    executable: String(data['executable'] ?? exe),
    prefix: typeof data['prefix'] === 'string' ? data['prefix'] : undefined,
    packages,
    siteDirs: Array.isArray(data['site']) ? (data['site'] as unknown[]).filter((d): d is string => typeof d === 'string') : [],
  };
}

/**
 * Runs `path` once to learn its version, platform and packages. Cached by path and
 * modification times. Throws InterpreterError with a clear reason when it is not a working Python.
 */
export async function probeInterpreter(exePath: string, opts: ProbeOptions = {}): Promise<Probe> {
  const exe = path.resolve(exePath);
  let st;
  try {
    st = await fsp.stat(exe);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw code === 'EACCES' ? fail(exe, 'permission denied', 'not-executable') : fail(exe, 'no such file', 'not-found');
  }
  if (st.isDirectory()) throw fail(exe, 'is a folder, not an executable', 'not-found');
  const stamp = { mtimeMs: st.mtimeMs, size: st.size };
  if (!opts.refresh) {
    const hit = await getCachedProbe(exe, stamp, opts.cacheFile);
    if (hit) return hit;
  }
  const pending = inFlight.get(exe);
  if (pending) return pending;
  const run = (async () => {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    const started = performance.now();
    const r = await (opts.runner ?? defaultRunner)(exe, ['-c', PROBE_SCRIPT], { timeoutMs });
    const probe = parseProbeOutput(exe, r, timeoutMs);
    probe.elapsedMs = Math.round(performance.now() - started);
    await putCachedProbe(exe, stamp, probe, opts.cacheFile);
    return probe;
  })();
  inFlight.set(exe, run);
  try {
    return await run;
  } finally {
    inFlight.delete(exe);
  }
}
