/**
 * What the panel knows about the sessions, kept current from the SessionManager's events and
 * turned into the messages pushed to open panels.
 *
 * Views are built synchronously so that events leave in the order they happened (busy, then
 * idle — never the other way round because one view waited on a slower read). The one fact that
 * needs a read, a kernel's resident memory, is refreshed on a timer and served from a cache.
 */
import { EventEmitter } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { residentBytes } from '../../kernel/process/process-stats.js';
import type { KernelState } from '../../kernel/kernel.js';
import type { SessionManager } from '../../sessions/session-manager.js';
import { SESSION_NAME } from '../../sessions/session-manager.js';
import type { Session } from '../../sessions/session.js';
import type { LogEntry } from '../../sessions/session-log.js';
import type { QuestionView } from '../../sessions/question.js';
import { ANOTHER_CLIENT } from '../../sessions/parties.js';
import type { Output } from '../../kernel/execution/outputs.js';
import { entryView, type EntryView } from './log.js';
import { LiveOutputs, type LiveOutputView } from './live-output.js';

export interface SessionView {
  name: string;
  state: KernelState;
  /** False for a kernel attached by connection file: stopping it only detaches. */
  owned: boolean;
  pid: number | null;
  memoryBytes: number | null;
  interpreter: string | null;
  interpreterReason: string | null;
  /** 'ipykernel' or 'worker' for a session on this machine; why; and what installing ipykernel would add. */
  engine: { name: string; reason: string; upgrade: string | null } | null;
  /** The remote Jupyter server it runs on, by its registered name; null on this machine. */
  server: string | null;
  pythonVersion: string | null;
  connectionFile: string | null;
  cwd: string | null;
  /** Why that folder (the client's MCP root, the folder it started in, the home folder). */
  cwdReason: string | null;
  /** Epoch ms the current kernel process started (it changes on restart). */
  startedAt: number | null;
  executionCount: number;
  restarts: number;
  /**
   * The run in progress, with the latest of what it has printed so far. `run` and
   * `callersWaiting`: a run left going by a call that came back shows that nobody waits for it.
   */
  running: { since: number; code: string; client: string | null; output: LiveOutputView | null; run: string | null; callersWaiting: number | null } | null;
  /** What the running code asks the person (input(), getpass, the debugger's prompt), until someone answers; never an answer. */
  question: QuestionView | null;
}

export type PanelEvent =
  | { type: 'session'; session: SessionView }
  | { type: 'session-removed'; name: string }
  | { type: 'run-started'; session: string; code: string; client: string; time: string }
  | { type: 'logged'; session: string; entry: EntryView }
  | { type: 'died'; session: string; message: string }
  | { type: 'restarted'; session: string; cause: string }
  | { type: 'stats'; memory: Record<string, number | null> }
  | { type: 'variables'; session: string; asOf: number | null; error: string | null }
  | { type: 'interpreters' }
  | { type: 'servers' }
  | { type: 'clients' };

export const MEMORY_REFRESH_MS = 3000;

// The manager's events carry different payloads; each listener below names its own.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Listener = (...args: any[]) => void;

export class PanelModel extends EventEmitter {
  private readonly memory = new Map<string, number | null>();
  private readonly timer: NodeJS.Timeout;
  private readonly subscriptions: [string, Listener][];
  /** What running cells print, sent with their session's view a few times a second at most. */
  private readonly live: LiveOutputs;

  constructor(
    readonly sessions: SessionManager,
    readonly stateDir: string,
  ) {
    super();
    this.live = new LiveOutputs((name) => {
      const session = this.sessions.find(name);
      if (session) this.push(session);
    });
    const on = {
      added: (s: Session) => {
        this.push(s);
        void this.refreshMemory();
      },
      removed: (s: Session) => {
        this.memory.delete(s.name);
        this.live.end(s.name);
        this.publish({ type: 'session-removed', name: s.name });
      },
      changed: (s: Session) => this.push(s),
      'run-started': (s: Session, payload: { code: string; client: string; time: string }) => {
        this.live.begin(s.name);
        this.push(s);
        this.publish({ type: 'run-started', session: s.name, code: payload.code, client: payload.client, time: payload.time });
      },
      'run-output': (s: Session, output: Output) => {
        if (output.type === 'stream') this.live.stream(s.name, output.name, output.text);
        else if (output.type === 'execute_result' || output.type === 'display_data') this.live.rich(s.name);
      },
      logged: (s: Session, entry: LogEntry) => {
        // A tool entry is not the end of a run: a run that started after the tool goes on. Nor is
        // a cell another Jupyter client ran: it is logged when it ends, whatever of ours runs.
        if (entry.kind !== 'tool' && entry.client !== ANOTHER_CLIENT) {
          // The entry carries all of the output and takes the running one's place: nothing of
          // the run is published after it.
          this.live.end(s.name);
        }
        this.publish({ type: 'logged', session: s.name, entry: entryView(entry) });
        this.push(s); // execution count moved on
      },
      died: (s: Session, error: Error) => {
        this.push(s);
        this.publish({ type: 'died', session: s.name, message: error.message });
      },
      restarted: (s: Session, info: { cause?: string }) => {
        this.push(s);
        this.publish({ type: 'restarted', session: s.name, cause: info?.cause ?? 'restarted' });
        void this.refreshMemory();
      },
    };
    this.subscriptions = Object.entries(on) as [string, Listener][];
    for (const [event, listener] of this.subscriptions) sessions.on(event, listener);
    this.timer = setInterval(() => void this.refreshMemory(), MEMORY_REFRESH_MS);
    this.timer.unref();
    void this.refreshMemory();
  }

  /** The session's facts as the panel shows them (camelCase; the renderer reads these names). */
  view(session: Session): SessionView {
    const facts = session.facts();
    const running = facts.running
      ? {
          since: facts.running.since,
          code: facts.running.code,
          client: facts.running.client,
          output: this.live.view(session.name),
          run: facts.running.run,
          callersWaiting: facts.running.callersWaiting,
        }
      : null;
    return {
      name: facts.name,
      state: facts.state,
      owned: facts.owned,
      pid: facts.pid ?? null,
      memoryBytes: this.memory.get(facts.name) ?? null,
      interpreter: facts.interpreter?.path ?? null,
      interpreterReason: facts.interpreter?.reason ?? null,
      engine: facts.interpreter?.engine ? { name: facts.interpreter.engine.engine, reason: facts.interpreter.engine.reason, upgrade: facts.interpreter.engine.upgrade ?? null } : null,
      server: facts.place.kind === 'remote' ? facts.place.serverName : null,
      pythonVersion: facts.kernelInfo?.language_info?.version ?? null,
      connectionFile: facts.connectionFile ?? null,
      cwd: facts.cwd ?? null,
      cwdReason: facts.cwdReason ?? null,
      startedAt: facts.startedAt ?? null,
      executionCount: facts.executionCount,
      restarts: facts.restarts,
      running,
      // Field by field: whatever else a question comes to hold, the page gets only these.
      question: facts.question
        ? { id: facts.question.id, run: facts.question.run, prompt: facts.question.prompt, password: facts.question.password, askedAt: facts.question.askedAt, client: facts.question.client }
        : null,
    };
  }

  views(): SessionView[] {
    return this.sessions.list().map((s) => this.view(s));
  }

  /** Sessions that have a folder (and so a log) but no kernel now, newest first. */
  pastSessions(): string[] {
    const live = new Set(this.sessions.list().map((s) => s.name));
    const dir = join(this.stateDir, 'sessions');
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return [];
    }
    return names.filter((n) => SESSION_NAME.test(n) && !live.has(n) && existsSync(join(dir, n, 'log.jsonl'))).sort();
  }

  /** The folder holding a session's log and figures, live or ended; null for an unknown name. */
  sessionDir(name: string): string | null {
    const live = this.sessions.find(name);
    if (live) return live.dir;
    if (!SESSION_NAME.test(name)) return null;
    const dir = join(this.stateDir, 'sessions', name);
    return existsSync(dir) ? dir : null;
  }

  publish(event: PanelEvent): void {
    this.emit('event', event);
  }

  async refreshMemory(): Promise<void> {
    const list = this.sessions.list();
    const values = await Promise.all(list.map((s) => residentBytes(s.facts().pid)));
    let changed = false;
    const memory: Record<string, number | null> = {};
    list.forEach((s, i) => {
      if (this.sessions.find(s.name) !== s) return; // removed while we read
      memory[s.name] = values[i];
      if (this.memory.get(s.name) !== values[i]) changed = true;
      this.memory.set(s.name, values[i]);
    });
    if (changed) this.publish({ type: 'stats', memory });
  }

  dispose(): void {
    clearInterval(this.timer);
    this.live.dispose();
    for (const [event, listener] of this.subscriptions) this.sessions.off(event, listener);
    this.removeAllListeners();
  }

  private push(session: Session): void {
    if (this.sessions.find(session.name) !== session) {
      // SessionManager.close() forgets the session, then waits for the kernel to exit; its
      // 'closed' state arrives in between. Say it is gone now rather than a second later.
      if (session.state === 'closed') this.publish({ type: 'session-removed', name: session.name });
      return;
    }
    const view = this.view(session);
    if (view.running) this.live.published(session.name); // its latest output went with this view
    this.publish({ type: 'session', session: view });
  }
}
