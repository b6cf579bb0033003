/**
 * A question the running code asked (input(), getpass.getpass(), the debugger's prompt), open
 * until someone answers it once: the person, through the calling client's form or the panel.
 * Whoever answers first wins; the others are told it is gone. An answer goes to the kernel and
 * nowhere else (no log, no record, no view of this object carries it). Declining raises
 * KeyboardInterrupt in the code; a question nobody can answer gets EOFError with the reason.
 *
 * A "hold" is a client's form on screen for it (an elicitation request in a call, or an
 * input-required result whose retry has not come yet): while one is held, the question is not
 * given up for want of anyone to answer it.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { InputRequest } from '../kernel/messaging/transport.js';
import { answerReply, declinedReply, unansweredReply } from '../kernel/messaging/input-replies.js';
import { PANEL_CLIENT } from './parties.js';

/** What anyone may see of a question: never its answer. */
export interface QuestionView {
  id: string;
  /** The run whose code asks. */
  run: string;
  prompt: string;
  /** Asked with getpass: the answer is a secret, shown to no one. */
  password: boolean;
  askedAt: number;
  /** The client that sent the code that asks. */
  client: string;
}

export type QuestionReply = { action: 'accept'; value: string } | { action: 'decline' };

/** How it closed: answered, declined (KeyboardInterrupt), unanswered (EOFError), or its run ended first. */
export type QuestionEnd = 'answered' | 'declined' | 'unanswered' | 'ended';

export type QuestionEvents = {
  closed: [end: QuestionEnd];
  /** A hold was let go (a client's form closed without an answer, a retry that never came). */
  released: [];
};

export class Question extends EventEmitter<QuestionEvents> {
  readonly id = randomUUID();
  readonly askedAt = Date.now();
  end: QuestionEnd | undefined;
  /** Who answered or declined ("panel", a client's name). */
  by: string | undefined;
  private holds = 0;

  constructor(
    readonly run: string,
    readonly client: string,
    private readonly request: InputRequest,
  ) {
    super();
  }

  get prompt(): string {
    return this.request.prompt;
  }

  get password(): boolean {
    return this.request.password;
  }

  get isOpen(): boolean {
    return this.end === undefined;
  }

  /** Whether a client's form for it is on screen now. */
  get held(): boolean {
    return this.holds > 0;
  }

  view(): QuestionView {
    return { id: this.id, run: this.run, prompt: this.prompt, password: this.password, askedAt: this.askedAt, client: this.client };
  }

  /** The person's reply; 'gone' when it was already closed (answered elsewhere first, its run ended). */
  reply(reply: QuestionReply, by: string): 'answered' | 'declined' | 'gone' {
    if (!this.isOpen) return 'gone';
    this.by = by;
    if (reply.action === 'accept') {
      this.request.reply(answerReply(reply.value));
      this.close('answered');
      return 'answered';
    }
    // A client declines for the person where it cannot show a form (Codex's exec mode does).
    const who = by === PANEL_CLIENT ? 'the person declined in the panel' : `declined in ${by}'s form (by the person, or by the client where it shows none)`;
    this.request.reply(declinedReply(`${who}: no answer to ${JSON.stringify(this.prompt)}`));
    this.close('declined');
    return 'declined';
  }

  /** Nobody can answer it: the code gets EOFError with `why`. */
  giveUp(why: string): void {
    if (!this.isOpen) return;
    this.request.reply(unansweredReply(`${JSON.stringify(this.prompt)} got no answer: ${why}`));
    this.close('unanswered');
  }

  /** Its run ended (an interrupt, its time limit, a restart) while it was open: nothing to send. */
  endedWithRun(): void {
    if (this.isOpen) this.close('ended');
  }

  /** A client's form is on screen for it; the returned function lets go (once). */
  hold(): () => void {
    this.holds++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds--;
      if (this.isOpen) this.emit('released');
    };
  }

  private close(end: QuestionEnd): void {
    this.end = end;
    this.emit('closed', end);
  }
}
