/** Kernels on remote Jupyter servers (Jupyter Server, JupyterHub, Enterprise Gateway). */
export { backoffDelay, type BackoffOptions } from './backoff.js';
export { JupyterApi, RemoteServerError, type RemoteErrorKind, type RemoteKernelModel, type RemoteKernelSpec } from './jupyter-api.js';
export { KernelChannel, ChannelClosedError } from './kernel-channel.js';
export { describeServer, describeServers, formatOffers, type RemoteServerOffer } from './kernelspecs.js';
export { RemoteConnectionLostError, RemoteKernel, type ConnectionStatus, type RemoteKernelOptions } from './remote-kernel.js';
export { RemoteServer, ServerRegistry, ServerRegistryError, SERVER_NAME, normalizeServerUrl, parseRemoteKernelRef, type RemoteServerView } from './server-registry.js';
