/**
 * The tray app: an icon whose look follows the sessions, a menu to open the panel, interrupt,
 * restart, register with Claude Desktop and quit, and the panel window — the daemon's own page,
 * loaded with its key. The app is a view of the daemon and never owns kernels: it finds the
 * daemon (starting one if none runs), and quitting leaves it serving the MCP clients unless the
 * person asks to stop it too.
 *
 * Run with `npm start` (app/cli/start.ts), or `electron dist/app/electron/main.js [--hidden]`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, session, shell, Tray, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import { builtCliPath, currentDaemonFiles, requestControl } from '../core/tray-api.js';
import { DaemonLink } from './daemon-link.js';
import { IPC } from './ipc-channels.js';
import { iconFileName, iconsDir } from './tray-icons.js';
import { trayIconState, trayMenu, trayTooltip, type MenuItemSpec, type TrayAction, type TrayIconState } from './tray-state.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const files = currentDaemonFiles();

app.setName('Python Session');

// One tray per user: a second launch shows the first one's panel and leaves.
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => void openPanel());
  void app.whenReady().then(start, fail);
}

let tray: Tray | null = null;
let panel: BrowserWindow | null = null;
let quitting = false;
const icons = new Map<TrayIconState, NativeImage>();

/**
 * The daemon runs on plain Node: the one `npm start` ran on (PYTHON_SESSION_NODE), or this
 * Electron binary acting as Node. Detached, so it outlives the tray.
 */
function spawnDaemon(): void {
  const node = process.env.PYTHON_SESSION_NODE;
  const env = { ...process.env, ...(node ? {} : { ELECTRON_RUN_AS_NODE: '1' }) };
  const child = spawn(node || process.execPath, [builtCliPath(), 'serve', '--background'], { detached: true, stdio: 'ignore', env, windowsHide: true });
  child.on('error', (error) => void dialog.showErrorBox('Python Session', `Could not start the daemon: ${error.message}`));
  child.unref();
}

const link = new DaemonLink({ stateDir: files.stateDir, spawnDaemon });

function icon(state: TrayIconState): NativeImage {
  let image = icons.get(state);
  if (!image) {
    // Electron picks tray-<state>@2x.png beside it on high-density screens.
    image = nativeImage.createFromPath(join(iconsDir(), iconFileName(state, 16)));
    icons.set(state, image);
  }
  return image;
}

async function start(): Promise<void> {
  hardenSessions();
  ipcMain.handle(IPC.reopenPanel, () => reloadPanel());
  tray = new Tray(icon('offline'));
  tray.on('click', () => void openPanel()); // Windows and Linux: a click opens, the menu is on right-click
  let pending: NodeJS.Timeout | null = null;
  link.on('change', () => {
    // Events can come in bursts (a run starting and ending); redraw at most every 200 ms.
    pending ??= setTimeout(() => {
      pending = null;
      renderTray();
    }, 200);
  });
  // Running timers in the menu and tooltip move on even when no event comes.
  setInterval(() => link.sessions.some((s) => s.state === 'busy') && renderTray(), 1000).unref();
  renderTray();
  try {
    await link.ensureDaemon();
  } catch (error) {
    dialog.showErrorBox('Python Session', (error as Error).message);
  }
  link.start();
  if (!process.argv.includes('--hidden')) await openPanel();
}

function fail(error: Error): void {
  dialog.showErrorBox('Python Session', `The tray could not start: ${error.message}`);
  app.quit();
}

function renderTray(): void {
  if (!tray) return;
  const model = { connected: link.connected, sessions: link.sessions, claudeDesktop: link.claudeDesktop };
  const now = Date.now();
  const state = trayIconState(model);
  const tooltip = trayTooltip(model, now);
  const menu = trayMenu(model, now);
  tray.setImage(icon(state));
  tray.setToolTip(tooltip);
  tray.setContextMenu(Menu.buildFromTemplate(menu.map(toElectron)));
  // The end-to-end test reads what the tray shows (a tray icon cannot be screenshotted).
  if (process.env.PYTHON_SESSION_E2E === '1') Object.assign(globalThis, { pythonSessionTrayShown: { state, tooltip, menu } });
}

function toElectron(item: MenuItemSpec): MenuItemConstructorOptions {
  return {
    type: item.type,
    label: item.label,
    enabled: item.enabled ?? true,
    checked: item.checked,
    toolTip: item.toolTip,
    submenu: item.submenu?.map(toElectron),
    click: item.action ? () => void perform(item.action!) : undefined,
  };
}

async function perform(action: TrayAction): Promise<void> {
  try {
    switch (action.kind) {
      case 'open-panel':
        return void (await openPanel());
      case 'interrupt-all':
        await link.request('POST', '/api/sessions/interrupt-all');
        return;
      case 'restart':
        if (await confirm(`Restart the session “${action.session}”?`, 'Every variable in it is lost.', 'Restart')) {
          await link.request('POST', `/api/sessions/${encodeURIComponent(action.session)}/restart`);
        }
        return;
      case 'restart-all': {
        const names = link.sessions.filter((s) => s.owned !== false && s.state !== 'closed').map((s) => s.name);
        if (await confirm(`Restart ${names.length} session${names.length === 1 ? '' : 's'}?`, `${names.join(', ')} — every variable in them is lost.`, 'Restart All')) {
          await Promise.all(names.map((name) => link.request('POST', `/api/sessions/${encodeURIComponent(name)}/restart`)));
        }
        return;
      }
      case 'register-claude-desktop':
      case 'unregister-claude-desktop': {
        const add = action.kind === 'register-claude-desktop';
        const result = await link.request<{ message: string }>('POST', `/api/clients/claude-desktop/${add ? 'register' : 'unregister'}`);
        await link.refreshRegistration();
        await dialog.showMessageBox({ type: 'info', message: add ? 'Registered with Claude Desktop' : 'Removed from Claude Desktop', detail: result.message });
        return;
      }
      case 'start-daemon':
        await link.ensureDaemon();
        return;
      case 'quit':
        quitting = true;
        app.quit();
        return;
      case 'quit-and-stop':
        if (await confirm('Stop Python Session too?', 'Every session ends, and MCP clients lose their kernels until it starts again.', 'Quit and Stop')) {
          await requestControl(files.socket.path, 'stop').catch(() => undefined);
          quitting = true;
          app.quit();
        }
        return;
    }
  } catch (error) {
    dialog.showErrorBox('Python Session', (error as Error).message);
  }
}

async function confirm(message: string, detail: string, yes: string): Promise<boolean> {
  const { response } = await dialog.showMessageBox({ type: 'question', message, detail, buttons: [yes, 'Cancel'], defaultId: 1, cancelId: 1 });
  return response === 0;
}

/**
 * The panel window: sandboxed, isolated, no Node, and a preload that adds one function. It may
 * show the daemon's own pages and nothing else; other links open in the person's browser.
 */
async function openPanel(): Promise<void> {
  if (panel && !panel.isDestroyed()) {
    if (panel.isMinimized()) panel.restore();
    panel.show();
    panel.focus();
    return;
  }
  const address = await link.ensureDaemon();
  panel = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 640,
    minHeight: 420,
    title: 'Python Session',
    icon: join(iconsDir(), iconFileName('idle', 256)),
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: join(here, 'preload', 'preload.js'),
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  const contents = panel.webContents;
  contents.setWindowOpenHandler(({ url }) => {
    // A figure or saved output opened in its own window: same origin, same cookie, same sandbox.
    if (sameOrigin(url, currentOrigin())) return { action: 'allow', overrideBrowserWindowOptions: { autoHideMenuBar: true, webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false } } };
    if (/^https?:/.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!sameOrigin(url, currentOrigin())) event.preventDefault();
  });
  panel.once('ready-to-show', () => panel?.show());
  panel.on('close', (event) => {
    // Closing the window keeps the tray; only Quit ends the app.
    if (!quitting) {
      event.preventDefault();
      panel?.hide();
    }
  });
  await panel.loadURL(address.url);
}

function currentOrigin(): string {
  const url = panel?.webContents.getURL();
  return url ? new URL(url).origin : '';
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/** The daemon restarted (new port, new key): point the window at the new address. */
async function reloadPanel(): Promise<void> {
  const address = await link.ensureDaemon();
  await panel?.loadURL(address.url);
}

/** No permission prompts (camera, notifications, …): the panel needs none. */
function hardenSessions(): void {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
}

app.on('before-quit', () => {
  quitting = true;
  link.stop();
});

// A tray app stays when its window closes.
app.on('window-all-closed', () => undefined);
