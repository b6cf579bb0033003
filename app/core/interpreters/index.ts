/** Interpreter discovery, probing and choice: the public surface. */
export type {
  Choice,
  Discovery,
  DiscoveryOptions,
  Interpreter,
  InterpreterKind,
  LocatorName,
  PassedOver,
  Probe,
  Skipped,
  VersionSource,
} from './types.js';
export { InterpreterError, type InterpreterErrorCode } from './errors.js';
export { describeInterpreter, discoverInterpreters, listInterpreters } from './discover.js';
export { clearProbeCache } from './probe-cache.js';
export { DEFAULT_PROBE_TIMEOUT_MS, PROBE_PACKAGES, probeInterpreter, type ProbeOptions, type ProbeRunner } from './probe.js';
export { chooseInterpreter, describeForHumans, MIN_PYTHON, rankInterpreters, type ChooseOptions, type Ranked } from './choose.js';
export { ipykernelInstallCommand } from './install-hint.js';
export { nodeHost, type FileInfo, type HostPort, type RegistryPython } from './fs-port.js';
export { createMemoryHost, withFaults, type MemoryTree } from './memory-host.js';
