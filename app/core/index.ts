/** The library entry: the kernel engine and PythonRunner, usable without the daemon. */
export { PythonRunner, PythonError, PythonTimeoutError, type PythonRunnerOptions, type RunOptions, type ValueDetails } from './runner/python-runner.js';
export { type Kernel, KernelSupervisor, LocalProvisioner, attachedKernelOptions, KernelDiedError, KernelClosedError, type KernelOptions, type KernelState, type ExecuteOptions } from './kernel/kernel.js';
export { KernelStartError } from './kernel/process/launch.js';
export { outputText, type ExecutionResult, type Output, type MimeBundle } from './kernel/execution/outputs.js';
export { describePythonError, stripAnsi, type PythonErrorInfo } from './kernel/execution/error-text.js';
export { readConnectionFile, type ConnectionInfo } from './kernel/messaging/connection-info.js';
export { listInterpreters, probeInterpreter, chooseInterpreter, ipykernelInstallCommand, InterpreterError, type Interpreter, type Probe, type Choice } from './interpreters/index.js';
