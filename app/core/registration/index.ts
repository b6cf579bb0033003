/** Registering this server with MCP clients (Claude Desktop, Claude Code, Codex, Cursor, Gemini CLI, VS Code, Windsurf). */
export {
  CLIENT_IDS,
  CLIENTS,
  type ClientDefinition,
  type ClientId,
  type PathProbe,
  type PlatformContext,
  UnknownClientError,
  defaultContext,
  getClient,
  isClientId,
  nodePathProbe,
} from './clients.js';
export { ConfigConflictError, ConfigFileError, type ConfigProblem, backupPathFor } from './config-file.js';
export {
  type ClientState,
  type ClientStatus,
  type FileAction,
  type FileOutcome,
  type FileState,
  type FileStatus,
  type RegistrationOptions,
  type RegistrationResult,
  type StatusOptions,
  registerClient,
  registrationStatus,
  unregisterClient,
} from './register.js';
export {
  type EntrySummary,
  INTERPRETER_ENV,
  SERVER_NAME,
  type ServerEntry,
} from './server-entry.js';
export { type ThisInstallOptions, builtCliPath, installWarnings, thisInstallEntry } from './this-install.js';
