/**
 * One connection's client folder: where a session started for this client works (the rule is in
 * sessions/project-folder.ts). Roots are asked for once the client says it is initialized, and
 * again when it says they changed; a tool call that needs the folder before the answer waits for
 * it (at most ROOTS_TIMEOUT_MS, then the next rule applies).
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { chooseFolder, folderFromRoots, type FolderChoice, type FolderContext } from '../sessions/project-folder.js';

export const ROOTS_TIMEOUT_MS = 5000;

const isFolder = (dir: string) => {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
};

/** This machine's home, temporary folder and platform, for the folder rule. */
export function localFolderContext(): FolderContext {
  const tmp = tmpdir();
  let real = tmp;
  try {
    real = realpathSync(tmp);
  } catch {
    /* the name we have will do */
  }
  return { home: homedir(), tmp: [...new Set([tmp, real])], platform: process.platform };
}

export interface ClientFolderOptions {
  /** The client's name, for the reasons given. */
  client: () => string;
  /** The folder the shim was started in, from its handshake. */
  cwd?: string;
  /** Called with the folder once the client is initialized (and its roots answered). */
  onInitialized?: (choice: FolderChoice) => void;
  context?: FolderContext;
  rootsTimeoutMs?: number;
}

export class ClientFolder {
  private rootFolder: string | null = null;
  private asking: Promise<void> | null = null;
  private readonly context: FolderContext;

  constructor(
    private readonly server: Server,
    private readonly options: ClientFolderOptions,
  ) {
    this.context = options.context ?? localFolderContext();
    server.setNotificationHandler(RootsListChangedNotificationSchema, () => void this.askRoots());
    const previous = server.oninitialized;
    server.oninitialized = () => {
      previous?.();
      this.clientKnown();
    };
  }

  private known = false;

  /** The client is initialized (handshake) or made its first stateless request: tell onInitialized, once. */
  clientKnown(): void {
    if (this.known) return;
    this.known = true;
    void this.current().then((choice) => this.options.onInitialized?.(choice));
  }

  /** The folder for a session started now for this client. */
  async current(): Promise<FolderChoice> {
    if (!this.asking && this.server.getClientCapabilities()?.roots) void this.askRoots();
    await this.asking;
    const cwd = this.options.cwd && isFolder(this.options.cwd) ? this.options.cwd : null;
    return chooseFolder({ client: this.options.client(), rootFolder: this.rootFolder, clientCwd: cwd }, this.context);
  }

  private askRoots(): Promise<void> {
    const asking = this.server.listRoots(undefined, { timeout: this.options.rootsTimeoutMs ?? ROOTS_TIMEOUT_MS }).then(
      ({ roots }) => {
        if (this.asking === asking) this.rootFolder = folderFromRoots(roots, isFolder); // a later answer wins
      },
      () => {
        // No answer, or an error: the started-in folder rule decides. A later change asks again.
        if (this.asking === asking) this.rootFolder = null;
      },
    );
    this.asking = asking;
    return asking;
  }
}
