/**
 * Reading PEP 514 registrations out of the Windows registry: the parser of `reg query` output
 * and the real reader, which runs `reg query` only when the process is on Windows.
 */
import { execFile } from 'node:child_process';

export interface RegistryPython {
  hive: 'HKCU' | 'HKLM';
  company: string;
  tag: string;
  installPath?: string;
  executablePath?: string;
  version?: string;
  sysVersion?: string;
  displayName?: string;
  architecture?: string;
}

const HIVES: Record<string, 'HKCU' | 'HKLM'> = { HKEY_CURRENT_USER: 'HKCU', HKEY_LOCAL_MACHINE: 'HKLM' };
const KEY_LINE = /^(HKEY_[A-Z_]+)\\Software\\(?:WOW6432Node\\)?Python\\(.+)$/i;
// Four-space separated: name, type, data. The default value's name is localised ("(Default)",
// "(Standard)", ...), but always in parentheses.
const VALUE_LINE = /^\s{4}(.+?)\s{4}(REG_[A-Z_]+)(?:\s{4}(.*))?$/;

/** Parses `reg query <key> /s` output into one entry per Company\Tag. */
export function parseRegQuery(text: string): RegistryPython[] {
  const byTag = new Map<string, RegistryPython>();
  let current: { entry: RegistryPython; sub: string } | undefined;
  for (const line of text.split(/\r?\n/)) {
    const key = KEY_LINE.exec(line.trim());
    if (key) {
      const hive = HIVES[(key[1] as string).toUpperCase()];
      const parts = (key[2] as string).split('\\');
      if (!hive || parts.length < 2) {
        current = undefined;
        continue;
      }
      const [company, tag, ...sub] = parts as [string, string, ...string[]];
      const id = `${hive}\\${company}\\${tag}`.toLowerCase();
      let entry = byTag.get(id);
      if (!entry) {
        entry = { hive, company, tag };
        byTag.set(id, entry);
      }
      current = { entry, sub: sub.join('\\').toLowerCase() };
      continue;
    }
    const value = VALUE_LINE.exec(line);
    if (!value || !current) continue;
    const name = (value[1] as string).trim();
    const data = (value[3] ?? '').trim();
    const isDefault = name.startsWith('(') && name.endsWith(')');
    const e = current.entry;
    if (current.sub === '') {
      if (name === 'Version') e.version = data;
      else if (name === 'SysVersion') e.sysVersion = data;
      else if (name === 'DisplayName') e.displayName = data;
      else if (name === 'SysArchitecture') e.architecture = data;
    } else if (current.sub === 'installpath') {
      if (isDefault && data) e.installPath = data;
      else if (name === 'ExecutablePath' && data) e.executablePath = data;
    }
  }
  return [...byTag.values()];
}

/** Runs `reg query` on the three PEP 514 roots. Windows only; a missing key is just empty. */
export async function readRegistryWithRegExe(): Promise<RegistryPython[]> {
  if (process.platform !== 'win32') return [];
  const keys = ['HKCU\\Software\\Python', 'HKLM\\Software\\Python', 'HKLM\\Software\\WOW6432Node\\Python'];
  const outputs = await Promise.all(
    keys.map(
      (key) =>
        new Promise<string>((resolve) => {
          execFile('reg', ['query', key, '/s'], { windowsHide: true, timeout: 5000, maxBuffer: 4 << 20 }, (err, stdout) =>
            resolve(err ? '' : stdout),
          );
        }),
    ),
  );
  return outputs.flatMap(parseRegQuery);
}
