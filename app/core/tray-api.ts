/**
 * What the tray app (app/electron/) takes from core: finding the daemon and asking it things,
 * the panel's address and its event stream, the command line's path and the package folder.
 * Apart from the library entry (index.ts) because Electron's runtime must not load what that
 * pulls in: ZeroMQ's native module is built for Node's ABI, not Electron's.
 */
export { requestControl } from './daemon/control-client.js';
export { currentDaemonFiles } from './daemon/state-paths.js';
export { readPanelAddress, type PanelAddress } from './daemon/panel/address.js';
export { SseParser } from './daemon/panel/sse-reader.js';
export { builtCliPath } from './registration/index.js';
export { packageRoot } from './package-root.js';
