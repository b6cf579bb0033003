/**
 * PEP 514 registrations: HKCU/HKLM `Software\Python\<Company>\<Tag>` with `InstallPath`
 * (default value, `ExecutablePath`) and `Version`/`SysVersion`. python.org installs register
 * as PythonCore, Anaconda as ContinuumAnalytics. The registry is read through the host port
 * (see registry-reader.ts for the real reader), so layouts are testable anywhere.
 */
import { identifyExecutable } from '../identify.js';
import { normalizeVersion } from '../version-from-files.js';
import { eachSettled, type Candidate, type Locator } from './locator.js';
import type { RegistryPython } from '../registry-reader.js';

export { parseRegQuery, readRegistryWithRegExe, type RegistryPython } from '../registry-reader.js';

export const windowsRegistryLocator: Locator = {
  name: 'windows-registry',
  async find(ctx) {
    if (!ctx.isWindows) return [];
    let entries: RegistryPython[];
    try {
      entries = await ctx.host.readRegistry();
    } catch (err) {
      ctx.skip('registry', `could not be read: ${(err as Error).message}`, 'registry');
      return [];
    }
    // PyLauncher registers py.exe, which picks a Python at run time.
    const pythons = entries.filter((e) => e.company.toLowerCase() !== 'pylauncher');
    return eachSettled(ctx, pythons, (e) => `${e.hive}\\Software\\Python\\${e.company}\\${e.tag}`, async (e): Promise<Candidate | undefined> => {
      const source = `registry ${e.hive}\\Software\\Python\\${e.company}\\${e.tag}`;
      const exe = e.executablePath ?? (e.installPath ? ctx.path.join(e.installPath, 'python.exe') : undefined);
      if (!exe) {
        ctx.skip(source, 'registered without InstallPath or ExecutablePath', 'registry');
        return undefined;
      }
      const version = normalizeVersion(e.version) ?? normalizeVersion(e.sysVersion);
      const c = await identifyExecutable(ctx, exe, {
        source,
        fallbackKind: 'windows-registry',
        version,
        versionSource: version ? 'registry' : undefined,
        explicit: true,
      });
      if (c && c.kind === 'windows-registry' && e.displayName) c.notes = [...(c.notes ?? []), e.displayName];
      return c;
    });
  },
};
