/** The folder rule: which started-in folders are projects, and the order roots → folder → home. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { chooseFolder, folderFromRoots, notAProjectFolder, type FolderContext } from './project-folder.js';

const linux: FolderContext = { home: '/home/ada', tmp: ['/tmp'], platform: 'linux' };
const mac: FolderContext = { home: '/Users/ada', tmp: ['/var/folders/x1/abc/T', '/private/var/folders/x1/abc/T'], platform: 'darwin' };
const windows: FolderContext = { home: 'C:\\Users\\ada', tmp: ['C:\\Users\\ada\\AppData\\Local\\Temp'], platform: 'win32' };

test('project folders on Linux', () => {
  for (const dir of ['/home/ada/code/sales', '/home/ada/Documents', '/tmp/ps-e2e-1/project', '/srv/data/analysis', '/opt/work/proj', '/mnt/share/team', '/data/sets']) {
    assert.equal(notAProjectFolder(dir, linux), null, dir);
  }
  const refused: [string, RegExp][] = [
    ['/', /root/],
    ['/home/ada', /home folder itself/],
    ['/home/ada/', /home folder itself/],
    ['/home', /holds home folders/],
    ['/home/ada/.config/Claude', /application folder/],
    ['/home/ada/.vscode/extensions/x', /application folder/],
    ['/usr/bin', /system folder/],
    ['/etc', /system folder/],
    ['/var/lib/app', /system folder/],
    ['/tmp', /temporary/],
    ['/var/tmp', /temporary/],
    ['/opt', /shared system folder/],
    ['relative/path', /absolute/],
  ];
  for (const [dir, why] of refused) assert.match(notAProjectFolder(dir, linux) ?? 'accepted', why, dir);
});

test('project folders on macOS and Windows', () => {
  assert.equal(notAProjectFolder('/Users/ada/Projects/sales', mac), null);
  assert.equal(notAProjectFolder('/private/var/folders/x1/abc/T/clone', mac), null, 'inside the temporary folder, under its real name');
  assert.match(notAProjectFolder('/Users/ada/Library/Application Support/Claude', mac) ?? '', /application folder/);
  assert.match(notAProjectFolder('/users/ADA', mac) ?? '', /home folder itself/, 'case-insensitive file system');
  assert.match(notAProjectFolder('/System/Volumes', mac) ?? '', /system folder/);
  assert.match(notAProjectFolder('/Applications/Claude.app/Contents', mac) ?? '', /system folder/);

  assert.equal(notAProjectFolder('C:\\Users\\ada\\source\\repos\\sales', windows), null);
  assert.equal(notAProjectFolder('D:\\research\\panel', windows), null);
  assert.match(notAProjectFolder('C:\\', windows) ?? '', /root/);
  assert.match(notAProjectFolder('C:\\Windows\\System32', windows) ?? '', /system folder/);
  assert.match(notAProjectFolder('c:\\program files\\Claude', windows) ?? '', /system folder/);
  assert.match(notAProjectFolder('C:\\Users\\ada\\AppData\\Local\\AnthropicClaude\\app-1.0', windows) ?? '', /application folder/);
  assert.match(notAProjectFolder('C:\\Users', windows) ?? '', /holds home folders/);
});

test('roots first, then the started-in folder when it is a project, then home', () => {
  const rootChoice = chooseFolder({ client: 'claude-code', rootFolder: '/home/ada/sales', clientCwd: '/home/ada/other' }, linux);
  assert.deepEqual([rootChoice.path, rootChoice.source], ['/home/ada/sales', 'roots']);
  const cwdChoice = chooseFolder({ client: 'codex', rootFolder: null, clientCwd: '/home/ada/other' }, linux);
  assert.deepEqual([cwdChoice.path, cwdChoice.source], ['/home/ada/other', 'client-folder']);
  const desktop = chooseFolder({ client: 'claude-ai', rootFolder: null, clientCwd: '/' }, linux);
  assert.deepEqual([desktop.path, desktop.source], ['/home/ada', 'home']);
  assert.match(desktop.reason, /started in \/, the filesystem root/);
  assert.equal(chooseFolder({ client: 'x', rootFolder: null, clientCwd: null }, linux).path, '/home/ada');
});

test('the first file: root that is a folder', () => {
  const exists = (dir: string) => dir === '/home/ada/b';
  assert.equal(folderFromRoots([{ uri: 'https://example.com/repo' }, { uri: pathToFileURL('/home/ada/a').href }, { uri: pathToFileURL('/home/ada/b').href }], exists), '/home/ada/b');
  assert.equal(folderFromRoots([{ uri: 'file://remote-host/share' }], () => true), null, 'a file URL naming another host is not a local folder');
  assert.equal(folderFromRoots([], exists), null);
});
