/** The one error type of interpreter handling: always says which interpreter and why. */

export type InterpreterErrorCode =
  | 'not-found' // no such file, or a folder without a Python in it
  | 'not-executable' // exists but cannot be run
  | 'probe-failed' // ran, but exited with an error or printed nonsense
  | 'timeout' // ran, but did not answer in time
  | 'too-old' // a Python older than ipykernel supports
  | 'no-ipykernel' // a working Python without ipykernel
  | 'none-found'; // discovery found nothing usable

export class InterpreterError extends Error {
  /** Short human reason, without the interpreter path (the message has both). */
  reason: string;
  /** The exact command that installs ipykernel where it is missing. */
  installCommand?: string;
  code: InterpreterErrorCode;
  /** The interpreter the error is about, when there is one. */
  interpreter?: string;

  constructor(
    message: string,
    init: { reason: string; code: InterpreterErrorCode; interpreter?: string; installCommand?: string },
  ) {
    super(message);
    this.name = 'InterpreterError';
    this.reason = init.reason;
    this.code = init.code;
    this.interpreter = init.interpreter;
    this.installCommand = init.installCommand;
  }
}
