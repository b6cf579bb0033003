/**
 * Shapes shared by discovery, probing and choice. `Interpreter`, `Probe` and `Choice` are a
 * contract with the rest of the project (daemon, MCP tools, panel, CLI); extend, don't rename.
 */
import type { HostPort } from './fs-port.js';

export type InterpreterKind =
  | 'conda-base'
  | 'conda-env'
  | 'venv'
  | 'pyenv'
  | 'uv'
  | 'system'
  | 'windows-registry'
  | 'env-var';

/** Where a version string came from; every one of these is a file, never a running Python. */
export type VersionSource =
  | 'conda-meta'
  | 'pyvenv.cfg'
  | 'patchlevel.h'
  | 'folder name'
  | 'executable name'
  | 'registry';

export interface Interpreter {
  /** The executable to run, as found (symlinks not resolved: a venv's python must stay in its venv). */
  path: string;
  /** `path` with every symlink resolved. */
  realPath: string;
  kind: InterpreterKind;
  /** Short display name: conda env name, `base`, venv folder, pyenv version, executable name. */
  name: string;
  /** Read from files (see `versionSource`); `3.11` when only the minor version is known. */
  version?: string;
  /** sys.prefix as Python will compute it. */
  prefix: string;
  /** The tool that made it: anaconda3, miniconda3, miniforge3, mambaforge, micromamba, venv, virtualenv, uv, pyenv-virtualenv, ... */
  manager?: string;
  /** The name `conda -n` accepts, when there is one (`base` for a base install). */
  condaEnvName?: string;
  /** The conda install this environment belongs to. */
  condaRoot?: string;
  /** Other paths merged into this one (the same interpreter reached another way). */
  aliases: string[];

  versionSource?: VersionSource;
  /** From files alone: true/false when the package folders were readable, undefined when unknown. */
  hasIpykernel?: boolean;
  /** The file that settled `hasIpykernel`. */
  ipykernelEvidence?: string;
  /** Activated in the environment we were started from (CONDA_PREFIX, VIRTUAL_ENV). */
  active?: boolean;
  /** Index on PATH of the folder it was reached through (lower runs first); absent when not on PATH. */
  pathOrder?: number;
  /** How it was found: `environments.txt`, `.condarc envs_dirs`, `PATH`, `registry`, ... */
  sources: string[];
  /** Short facts worth showing: `pyenv global version`, `listed in environments.txt`, ... */
  notes?: string[];
  /** The interpreter's stdlib carries PEP 668's EXTERNALLY-MANAGED marker (pip refuses plain installs). */
  externallyManaged?: boolean;
  /** A Debian/Ubuntu system Python (packages come from apt as python3-*). */
  debianPackaging?: boolean;
  /** venv details used to find its packages. */
  venv?: { home?: string; systemSitePackages: boolean };
}

export interface Probe {
  path: string;
  version: string;
  implementation: string;
  platform: string;
  executable: string;
  /** ipykernel, pandas, numpy, statsmodels, matplotlib, openpyxl, pyarrow -> version, or null when absent. */
  packages: Record<string, string | null>;
  /** sys.prefix reported by the interpreter. */
  prefix?: string;
  /** Package folders whose modification time keys the probe cache. */
  siteDirs?: string[];
  /** Wall time of the probe process, in milliseconds (0 when served from the cache). */
  elapsedMs?: number;
  /** True when this answer came from the cache instead of a process. */
  cached?: boolean;
}

export interface PassedOver {
  path: string;
  /** Human sentence: why it was not chosen. */
  reason: string;
  installCommand?: string;
}

export interface Choice {
  interpreter: Interpreter;
  /** Human sentence, e.g. "conda base environment of anaconda3 at /home/u/anaconda3 (has ipykernel)". */
  reason: string;
  probe?: Probe;
  /** Interpreters ranked above the chosen one, and why each was passed over. */
  passedOver?: PassedOver[];
}

/** Something the scan looked at and left out, with the reason (never silent about explicit paths). */
export interface Skipped {
  path: string;
  reason: string;
  source?: string;
}

export type LocatorName = 'conda' | 'venv' | 'pyenv' | 'uv' | 'system' | 'windows-registry' | 'env-var';

export interface DiscoveryOptions {
  /** File system, environment and platform; defaults to this machine's. */
  host?: HostPort;
  /** Shortcut overrides for the default host (ignored when `host` is given). */
  env?: NodeJS.ProcessEnv;
  home?: string;
  /** Only these locators (all by default). */
  locators?: LocatorName[];
  /** Project folders in which `.venv`, `venv` and `env` are looked for. */
  workspaceDirs?: string[];
  /** Replaces the "usual places" system Pythons are looked for (PATH is still read). */
  systemDirs?: string[];
}

export interface Discovery {
  interpreters: Interpreter[];
  skipped: Skipped[];
  elapsedMs: number;
}
