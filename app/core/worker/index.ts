export * from './launch-worker.js';
export * from './worker-heartbeat.js';
export * from './worker-lines.js';
export * from './worker-provisioner.js';
export * from './worker-transport.js';
