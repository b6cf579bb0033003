import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compareVersions,
  condaPackageRecord,
  normalizeVersion,
  parsePyvenvCfg,
  versionFromCondaMeta,
  versionFromExecutableName,
  versionFromFolderName,
  versionFromPatchlevel,
  versionFromPyvenvCfg,
} from './version-from-files.js';

describe('versions from conda-meta', () => {
  it('picks python itself, not python-dateutil, python_abi or python-tzdata', () => {
    const names = [
      'python-dateutil-2.8.2-pyhd8ed1ab_0.json',
      'python_abi-3.11-4_cp311.json',
      'python-tzdata-2024.1-pyhd8ed1ab_0.json',
      'python-3.11.5-h955ad1f_0.json',
      'history',
    ];
    assert.equal(versionFromCondaMeta(names), '3.11.5');
  });
  it('handles pre-releases and free-threaded build strings', () => {
    assert.equal(versionFromCondaMeta(['python-3.13.0rc1-h9ebbce0_100_cp313.json']), '3.13.0rc1');
    assert.equal(versionFromCondaMeta(['python-3.13.1-h5d0a4b1_100_cp313t.json']), '3.13.1');
  });
  it('says nothing for an env without python', () => {
    assert.equal(versionFromCondaMeta(['r-base-4.3.1-h7b7b9b0_0.json', 'python-dateutil-2.8.2-py_0.json']), undefined);
  });
  it('finds package records by exact name', () => {
    const names = ['ipykernel-6.29.5-pyh3099207_0.json', 'ipykernel-extras-1.0-0.json'];
    assert.equal(condaPackageRecord(names, 'ipykernel'), 'ipykernel-6.29.5-pyh3099207_0.json');
    assert.equal(condaPackageRecord(['ipykernel-extras-1.0-0.json'], 'ipykernel'), undefined);
  });
});

describe('versions from pyvenv.cfg', () => {
  it('reads venv, virtualenv and uv styles', () => {
    assert.equal(versionFromPyvenvCfg(parsePyvenvCfg('home = /usr/bin\nversion = 3.11.2\n')), '3.11.2');
    assert.equal(versionFromPyvenvCfg(parsePyvenvCfg('version_info = 3.11.7.final.0\r\nvirtualenv = 20.25.0\r\n')), '3.11.7');
    assert.equal(versionFromPyvenvCfg(parsePyvenvCfg('uv = 0.4.18\nversion_info = 3.12.1\n')), '3.12.1');
    assert.equal(versionFromPyvenvCfg(parsePyvenvCfg('home = C:\\Python312\n')), undefined);
  });
  it('keeps values containing "=" and lower-cases keys', () => {
    const cfg = parsePyvenvCfg('Home = /opt/a=b/bin\nInclude-System-Site-Packages = true');
    assert.equal(cfg['home'], '/opt/a=b/bin');
    assert.equal(cfg['include-system-site-packages'], 'true');
  });
});

describe('other version sources', () => {
  it('normalises release levels', () => {
    assert.equal(normalizeVersion('3.13.0.candidate.1'), '3.13.0rc1');
    assert.equal(normalizeVersion('3.12.0.beta.4'), '3.12.0b4');
    assert.equal(normalizeVersion('3.11'), '3.11');
    assert.equal(normalizeVersion('3.11.4+'), '3.11.4');
    assert.equal(normalizeVersion('banana'), undefined);
  });
  it('reads patchlevel.h', () => {
    assert.equal(versionFromPatchlevel('#define PY_MINOR_VERSION 11\n#define PY_VERSION      "3.11.2"\n'), '3.11.2');
    assert.equal(versionFromPatchlevel('#define PY_VERSION "3.13.0rc2"'), '3.13.0rc2');
  });
  it('reads pyenv and uv folder names', () => {
    assert.equal(versionFromFolderName('3.11.7'), '3.11.7');
    assert.equal(versionFromFolderName('3.13.0t'), '3.13.0');
    assert.equal(versionFromFolderName('cpython-3.12.1-linux-x86_64-gnu'), '3.12.1');
    assert.equal(versionFromFolderName('cpython-3.13.1+freethreaded-linux-x86_64-gnu'), '3.13.1');
    assert.equal(versionFromFolderName('pypy3.10-7.3.15'), '3.10');
    assert.equal(versionFromFolderName('miniconda3-latest'), undefined);
  });
  it('reads executable names', () => {
    assert.equal(versionFromExecutableName('python3.11'), '3.11');
    assert.equal(versionFromExecutableName('python3'), undefined);
  });
  it('compares versions numerically', () => {
    assert.ok(compareVersions('3.10.1', '3.9.18') > 0);
    assert.ok(compareVersions('3.8', '3.8.0') < 0);
    assert.ok(compareVersions('2.7.18', '3.8') < 0);
    assert.equal(compareVersions('3.11.2', '3.11.2'), 0);
  });
});
