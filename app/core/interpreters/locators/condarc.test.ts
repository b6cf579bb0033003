import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCondarcEnvsDirs } from './condarc.js';

describe('.condarc envs_dirs', () => {
  it('reads block lists with comments and quotes, and the old envs_path key', () => {
    const text = [
      'channels:',
      '  - conda-forge',
      'envs_dirs:',
      '  - /data/envs   # big disk',
      '  - "~/my envs"',
      "  - '$HOME/x#y'",
      'pkgs_dirs:',
      '  - /data/pkgs',
      'envs_path:',
      '- C:\\envs',
    ].join('\n');
    assert.deepEqual(parseCondarcEnvsDirs(text), ['/data/envs', '~/my envs', '$HOME/x#y', 'C:\\envs']);
  });
  it('reads flow lists and scalars', () => {
    assert.deepEqual(parseCondarcEnvsDirs('envs_dirs: [~/a, "/b c"]\n'), ['~/a', '/b c']);
    assert.deepEqual(parseCondarcEnvsDirs('envs_dirs: /only\n'), ['/only']);
  });
  it('ignores nested keys of the same name and other lists', () => {
    const text = 'custom:\n  envs_dirs:\n    - /nested\nchannels:\n  - defaults\n';
    assert.deepEqual(parseCondarcEnvsDirs(text), []);
  });
  it('stops the list at the next top-level key', () => {
    assert.deepEqual(parseCondarcEnvsDirs('envs_dirs:\n  - /a\nchannels:\n  - /not-an-env\n'), ['/a']);
  });
});
