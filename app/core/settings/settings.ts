/**
 * The user's settings, kept in <state>/settings.json by `conf` (atomic writes,
 * schema-checked). Environment variables override them for one run. A damaged file is moved
 * aside with a notice (../state-file.ts) and the defaults are used: settings never keep the
 * daemon from starting.
 */
import Conf from 'conf';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { isRecord, kindOf, readJsonStateFile, setAside } from '../state-file.js';

export interface SettingsData {
  /** Interpreter chosen by the user for new sessions (overridden by PYTHON_MCP_INTERPRETER). */
  interpreter?: string;
  /** Conda env prefixes the user marked as preferred. */
  markedEnvs: string[];
  /** Characters of output returned to a client before the rest is spilled to a file. */
  outputLimit: number;
  /** Default seconds a run may take before it is interrupted. */
  timeoutS: number;
  /** Default seconds a call waits for its run before coming back with the run still going. */
  waitS: number;
  /** Ready kernels kept per interpreter in use (0 turns the warm pool off). */
  warmPoolSize: number;
  /** Warm a kernel when a client connects and the default session is not running yet. */
  warmOnConnect: boolean;
  /** Per-kernel memory cap in MB; 0 means half the machine's memory; -1 turns it off. */
  memoryLimitMb: number;
}

export const SETTINGS_FILE = 'settings.json';
const INSTEAD = 'the default settings are used (PYTHON_MCP_* environment variables still apply)';

const DEFAULTS: SettingsData = { markedEnvs: [], outputLimit: 20_000, timeoutS: 600, waitS: 45, warmPoolSize: 1, warmOnConnect: true, memoryLimitMb: 0 };

function open(stateDir: string): Conf<SettingsData> {
  return new Conf<SettingsData>({
    cwd: stateDir,
    configName: 'settings',
    defaults: DEFAULTS,
    projectName: 'python-session',
    configFileMode: 0o600,
    schema: {
      interpreter: { type: 'string' },
      markedEnvs: { type: 'array', items: { type: 'string' } },
      outputLimit: { type: 'number', minimum: 1000 },
      timeoutS: { type: 'number', minimum: 1 },
      waitS: { type: 'number', minimum: 0 },
      warmPoolSize: { type: 'integer', minimum: 0, maximum: 8 },
      warmOnConnect: { type: 'boolean' },
      memoryLimitMb: { type: 'integer', minimum: -1 },
    },
  });
}

/** The store, with a damaged settings.json set aside first (../state-file.ts). */
function openChecked(stateDir: string): Conf<SettingsData> {
  const file = join(stateDir, SETTINGS_FILE);
  // Conf would throw on everything but a JSON object that fits the schema: check first.
  readJsonStateFile(file, { shape: (value) => (isRecord(value) ? null : `${kindOf(value)}, not an object`), instead: INSTEAD });
  try {
    return open(stateDir);
  } catch (error) {
    if (!(error as Error).message?.startsWith('Config schema violation')) throw error;
    setAside(file, `does not fit the settings (${(error as Error).message.replace(/^Config schema violation: /, '')})`, INSTEAD);
    return open(stateDir);
  }
}

export class Settings {
  private store: Conf<SettingsData>;
  // conf re-reads its file on every get; tools read settings on every call, so keep a copy.
  private cache: SettingsData;

  constructor(private readonly stateDir: string) {
    this.store = openChecked(stateDir);
    this.cache = { ...this.store.store };
  }

  get<K extends keyof SettingsData>(key: K): SettingsData[K] {
    return this.cache[key];
  }

  set<K extends keyof SettingsData>(key: K, value: SettingsData[K]): void {
    const change = () => {
      if (value === undefined) this.store.delete(key);
      else this.store.set(key, value);
    };
    try {
      change();
    } catch {
      // The file was damaged while the daemon ran (conf reads it before each write): set aside as
      // at start, then written afresh with what this daemon held, so no setting is lost.
      this.store = openChecked(this.stateDir);
      this.store.store = { ...this.cache };
      change();
    }
    this.cache = { ...this.store.store };
  }

  /** PYTHON_MCP_OUTPUT_LIMIT, else the setting. */
  outputLimit(env = process.env): number {
    const fromEnv = Number(env.PYTHON_MCP_OUTPUT_LIMIT);
    return Number.isFinite(fromEnv) && fromEnv >= 200 ? Math.floor(fromEnv) : this.get('outputLimit');
  }

  /** PYTHON_MCP_POOL_SIZE, else the setting. */
  warmPoolSize(env = process.env): number {
    const fromEnv = Number(env.PYTHON_MCP_POOL_SIZE);
    return env.PYTHON_MCP_POOL_SIZE !== undefined && Number.isInteger(fromEnv) && fromEnv >= 0 ? Math.min(fromEnv, 8) : this.get('warmPoolSize');
  }

  /** PYTHON_MCP_WARM_ON_CONNECT ("0"/"false"/"off" or "1"/"true"/"on"), else the setting. */
  warmOnConnect(env = process.env): boolean {
    const raw = env.PYTHON_MCP_WARM_ON_CONNECT?.trim().toLowerCase();
    if (raw && ['0', 'false', 'off', 'no'].includes(raw)) return false;
    if (raw && ['1', 'true', 'on', 'yes'].includes(raw)) return true;
    return this.get('warmOnConnect');
  }

  /** Bytes a kernel may allocate: PYTHON_MCP_MEMORY_LIMIT (MB; 0 or "off" disables), else the setting. */
  memoryLimitBytes(env = process.env): number | undefined {
    const raw = env.PYTHON_MCP_MEMORY_LIMIT;
    if (raw !== undefined && raw !== '') {
      const mb = Number(raw);
      if (raw === 'off' || mb === 0) return undefined;
      if (Number.isFinite(mb) && mb > 0) return mb * 1024 * 1024;
    }
    const setting = this.get('memoryLimitMb');
    if (setting < 0) return undefined;
    return setting > 0 ? setting * 1024 * 1024 : Math.floor(totalmem() / 2);
  }

  /**
   * PYTHON_MCP_WAIT, else the setting (45 s: under the 60 s after which Claude Desktop gives up
   * on a call, whatever the server does).
   */
  waitS(env = process.env): number {
    const fromEnv = Number(env.PYTHON_MCP_WAIT);
    return env.PYTHON_MCP_WAIT !== undefined && env.PYTHON_MCP_WAIT !== '' && Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : this.get('waitS');
  }

  /** PYTHON_MCP_TIMEOUT, else the setting. */
  timeoutS(env = process.env): number {
    const fromEnv = Number(env.PYTHON_MCP_TIMEOUT);
    return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : this.get('timeoutS');
  }
}
