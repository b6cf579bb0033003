/**
 * Where the engine writes what it notices but nobody asked about (a socket error, a failed
 * shutdown, a reconnection attempt): the daemon injects its daemon.log (app/core/daemon/
 * daemon-log.ts has this shape); elsewhere the default writes nothing.
 */
export type LogLevel = 'info' | 'warn' | 'error';

export interface EngineLogger {
  write(level: LogLevel, message: string): void;
}

export const silentLogger: EngineLogger = { write: () => undefined };

/** The message of a thrown value, for a log line. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
