import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeHost } from './fs-port.js';
import { parseRegQuery, readRegistryWithRegExe } from './registry-reader.js';
import { countSpawns } from './spawn-counter.js';

// What `reg query HKCU\Software\Python /s` prints (CRLF, four-space columns, German default name).
const SAMPLE = [
  '',
  'HKEY_CURRENT_USER\\Software\\Python\\PythonCore',
  '    DisplayName    REG_SZ    Python Software Foundation',
  '',
  'HKEY_CURRENT_USER\\Software\\Python\\PythonCore\\3.12',
  '    DisplayName    REG_SZ    Python 3.12 (64-bit)',
  '    SupportUrl    REG_SZ    https://www.python.org/',
  '    Version    REG_SZ    3.12.1',
  '    SysVersion    REG_SZ    3.12',
  '    SysArchitecture    REG_SZ    64bit',
  '',
  'HKEY_CURRENT_USER\\Software\\Python\\PythonCore\\3.12\\Help',
  '',
  'HKEY_CURRENT_USER\\Software\\Python\\PythonCore\\3.12\\InstallPath',
  '    (Standard)    REG_SZ    C:\\Users\\Ana\\AppData\\Local\\Programs\\Python\\Python312\\',
  '    ExecutablePath    REG_SZ    C:\\Users\\Ana\\AppData\\Local\\Programs\\Python\\Python312\\python.exe',
  '    WindowedExecutablePath    REG_SZ    C:\\Users\\Ana\\AppData\\Local\\Programs\\Python\\Python312\\pythonw.exe',
  '',
  'HKEY_LOCAL_MACHINE\\SOFTWARE\\WOW6432Node\\Python\\ContinuumAnalytics\\Anaconda39-64\\InstallPath',
  '    (Default)    REG_SZ    C:\\ProgramData\\Anaconda3',
  '',
].join('\r\n');

describe('registry reader', () => {
  it('parses PEP 514 entries from reg query output', () => {
    const entries = parseRegQuery(SAMPLE);
    assert.equal(entries.length, 2);
    const core = entries.find((e) => e.company === 'PythonCore');
    assert.deepEqual(core, {
      hive: 'HKCU',
      company: 'PythonCore',
      tag: '3.12',
      displayName: 'Python 3.12 (64-bit)',
      version: '3.12.1',
      sysVersion: '3.12',
      architecture: '64bit',
      installPath: 'C:\\Users\\Ana\\AppData\\Local\\Programs\\Python\\Python312\\',
      executablePath: 'C:\\Users\\Ana\\AppData\\Local\\Programs\\Python\\Python312\\python.exe',
    });
    const conda = entries.find((e) => e.company === 'ContinuumAnalytics');
    assert.equal(conda?.hive, 'HKLM');
    assert.equal(conda?.installPath, 'C:\\ProgramData\\Anaconda3');
  });

  it('never runs reg.exe off Windows', { skip: process.platform === 'win32' }, async () => {
    const { result, spawns } = await countSpawns(async () => [await readRegistryWithRegExe(), await nodeHost().readRegistry()]);
    assert.deepEqual(result, [[], []]);
    assert.equal(spawns, 0);
  });
});
