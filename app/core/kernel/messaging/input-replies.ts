/**
 * What the daemon sends back for a question the code asked (input(), getpass, the debugger's
 * prompt) when it is not an answer. The kernel's startup code (resources/python/kernel_startup.py,
 * item 12) turns these into exceptions in the code that asked: declined is the person's Ctrl-C
 * (KeyboardInterrupt), unanswered is input() with nothing to read (EOFError). Each carries the
 * words the exception is raised with. The prefix starts with a NUL, which no one types.
 */
export const NOT_AN_ANSWER = '\u0000python-session:';

export function declinedReply(words: string): string {
  return `${NOT_AN_ANSWER}declined:${words}`;
}

export function unansweredReply(words: string): string {
  return `${NOT_AN_ANSWER}unanswered:${words}`;
}

/** An answer the person typed, as sent: never mistaken for the two above. */
export function answerReply(value: string): string {
  return value.startsWith(NOT_AN_ANSWER) ? value.slice(1) : value;
}
