/**
 * Every message between the panel window and the main process, in one typed list (as
 * electron/fiddle keeps its channels): the preload and main both name channels from here, so
 * neither can listen on one the other never sends.
 *
 * The page talks to the daemon over HTTP like any browser tab; the tray adds only what a browser
 * cannot do for itself.
 */
export const IPC = {
  /** The daemon restarted and the page's key is stale: main reloads it with the current one. */
  reopenPanel: 'panel:reopen',
} as const;

export type IpcChannel = (typeof IPC)[keyof typeof IPC];

/** Arguments and result of each channel, for ipcRenderer.invoke / ipcMain.handle. */
export interface IpcContract {
  'panel:reopen': { args: []; result: void };
}

/** What the preload puts on `window.pythonSessionTray` — all the page can reach. */
export interface TrayBridge {
  reopen(): Promise<void>;
}
