export * from './message.js';
export * from './signer.js';
export * from './frames.js';
