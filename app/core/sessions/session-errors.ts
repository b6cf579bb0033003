/**
 * What can go wrong with a session's name, folder or start, as data: the message says what
 * happened in plain words, naming no tool; `next` says what the caller can do about it. The
 * tools layer and the panel word `next` their own way (a call to make, a button to press).
 */

/** The remedy, with what the words need. */
export type SessionNext =
  /** No session by that name: start one so named. */
  | { kind: 'start-session'; session: string }
  /** The session already has a kernel: restart it, shut it down first, or pick another name. */
  | { kind: 'restart-or-rename'; session: string }
  /** An interpreter path was given for a remote server: name one of the server's kernelspecs instead. */
  | { kind: 'choose-kernelspec'; server: string }
  /** The interpreter lacks ipykernel: install it with `command`, or choose another interpreter. */
  | { kind: 'install-ipykernel'; command: string };

export class SessionError extends Error {
  constructor(
    message: string,
    /** What can be done, when something can; the message alone says it all otherwise. */
    readonly next?: SessionNext,
  ) {
    super(message);
  }
}

/** The named session does not exist (a 404 for the panel, where the rest are the request's fault). */
export class NoSuchSessionError extends SessionError {
  constructor(
    message: string,
    readonly session: string,
  ) {
    super(message, { kind: 'start-session', session });
  }
}
