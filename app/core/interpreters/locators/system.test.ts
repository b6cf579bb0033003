import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { discoverInterpreters } from '../discover.js';
import { createMemoryHost, type MemoryTree } from '../memory-host.js';

const HOME = '/Users/ana';

function mac(tree: MemoryTree) {
  return createMemoryHost({ platform: 'darwin', home: HOME, env: { HOME, PATH: '/usr/local/bin:/usr/bin:/bin' }, tree });
}

describe('system Pythons on macOS', () => {
  it('never lists the /usr/bin/python3 stub when the Command Line Tools are absent', async () => {
    const r = await discoverInterpreters({ host: mac({ '/usr/bin/python3': 'stub', '/bin/sh': '' }), locators: ['system'] });
    assert.deepEqual(r.interpreters, []);
    assert.match(r.skipped.find((s) => s.path === '/usr/bin/python3')?.reason ?? '', /Command Line Tools/);
  });

  it('lists the Command Line Tools Python behind the stub, with the stub as an alias', async () => {
    const clt = '/Library/Developer/CommandLineTools';
    const r = await discoverInterpreters({
      host: mac({
        '/usr/bin/python3': 'stub',
        [`${clt}/usr/bin/python3`]: { link: '../../Library/Frameworks/Python3.framework/Versions/3.9/bin/python3' },
        [`${clt}/Library/Frameworks/Python3.framework/Versions/3.9/bin/python3`]: { link: 'python3.9' },
        [`${clt}/Library/Frameworks/Python3.framework/Versions/3.9/bin/python3.9`]: 'MZ',
        [`${clt}/Library/Frameworks/Python3.framework/Versions/3.9/include/python3.9/patchlevel.h`]: '#define PY_VERSION "3.9.6"',
      }),
      locators: ['system'],
    });
    assert.equal(r.interpreters.length, 1, JSON.stringify(r, null, 1));
    const p = r.interpreters[0]!;
    assert.equal(p.kind, 'system');
    assert.equal(p.version, '3.9.6');
    assert.equal(p.prefix, `${clt}/Library/Frameworks/Python3.framework/Versions/3.9`);
    assert.ok(p.aliases.includes('/usr/bin/python3'));
  });

  it('reads python.org framework installs and Homebrew through their symlinks', async () => {
    const fw = '/Library/Frameworks/Python.framework/Versions/3.12';
    const r = await discoverInterpreters({
      host: mac({
        [`${fw}/bin/python3.12`]: 'MZ',
        [`${fw}/bin/python3`]: { link: 'python3.12' },
        [`${fw}/include/python3.12/patchlevel.h`]: '#define PY_VERSION "3.12.4"',
        '/usr/local/bin/python3': { link: `${fw}/bin/python3` },
        '/usr/local/bin/python3.12': { link: `${fw}/bin/python3.12` },
      }),
      locators: ['system'],
    });
    assert.equal(r.interpreters.length, 1, r.interpreters.map((i) => i.path).join(', '));
    const p = r.interpreters[0]!;
    assert.equal(p.path, '/usr/local/bin/python3', 'the PATH name wins over the framework path');
    assert.equal(p.version, '3.12.4');
    assert.equal(p.pathOrder, 0);
    assert.ok(p.aliases.includes(`${fw}/bin/python3.12`));
  });
});
