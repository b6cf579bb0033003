/**
 * The panel window's preload. The window is sandboxed with context isolation, and this is the
 * only bridge: one function, `reopen`, for when the daemon restarted and the page's key went
 * stale. No ipcRenderer, no Node, nothing else reaches the page.
 *
 * Compiled to CommonJS (see package.json beside it): a sandboxed preload is run as a script.
 * Besides 'electron' it may import types only: the sandbox's `require` knows no local files.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcChannel, IpcContract, TrayBridge } from '../ipc-channels.js';

const REOPEN: IpcChannel & keyof IpcContract = 'panel:reopen';

const bridge: TrayBridge = Object.freeze({
  reopen: (): Promise<void> => ipcRenderer.invoke(REOPEN),
});

contextBridge.exposeInMainWorld('pythonSessionTray', bridge);
