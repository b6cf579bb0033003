/**
 * What the tray shows, as pure functions of what the daemon reports: the icon (idle, busy, dead,
 * or offline when no daemon answers), the tooltip, and the menu as plain data. main.ts turns the
 * menu into Electron's and binds each item's `action`; everything here is tested without Electron.
 */

export type TrayIconState = 'idle' | 'busy' | 'dead' | 'offline';

export interface TraySession {
  name: string;
  /** The kernel state: starting, idle, busy, restarting, dead, closed. */
  state: string;
  owned?: boolean;
  running?: { since: number; client: string | null } | null;
}

export type Registration = 'registered' | 'stale' | 'not-registered' | 'unknown';

export interface TrayModel {
  /** Whether the daemon is answering. */
  connected: boolean;
  sessions: TraySession[];
  /** Where Python Session stands with Claude Desktop. */
  claudeDesktop: Registration;
}

export type TrayAction =
  | { kind: 'open-panel' }
  | { kind: 'interrupt-all' }
  | { kind: 'restart'; session: string }
  | { kind: 'restart-all' }
  | { kind: 'register-claude-desktop' }
  | { kind: 'unregister-claude-desktop' }
  | { kind: 'start-daemon' }
  | { kind: 'quit' }
  | { kind: 'quit-and-stop' };

export interface MenuItemSpec {
  type?: 'normal' | 'separator' | 'checkbox' | 'submenu';
  label?: string;
  enabled?: boolean;
  checked?: boolean;
  toolTip?: string;
  action?: TrayAction;
  submenu?: MenuItemSpec[];
}

const BUSY_STATES = new Set(['busy', 'starting', 'restarting']);

/**
 * Dead wins (something needs the person's attention), then busy (something is running that they
 * may want to stop), then idle. No daemon is its own look: nothing can run, nothing is wrong.
 */
export function trayIconState(model: TrayModel): TrayIconState {
  if (!model.connected) return 'offline';
  if (model.sessions.some((s) => s.state === 'dead')) return 'dead';
  if (model.sessions.some((s) => BUSY_STATES.has(s.state))) return 'busy';
  return 'idle';
}

/** 0:07, 12:03, 1:02:03 */
export function stopwatch(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function describeSession(s: TraySession, now: number): string {
  if (s.state === 'busy' && s.running) {
    return `${s.name} — running ${stopwatch(now - s.running.since)}${s.running.client ? ` (${s.running.client})` : ''}`;
  }
  return `${s.name} — ${s.state === 'closed' ? 'stopped' : s.state}`;
}

export function trayTooltip(model: TrayModel, now: number): string {
  if (!model.connected) return 'Python Session — not running';
  if (model.sessions.length === 0) return 'Python Session — no sessions';
  const busy = model.sessions.filter((s) => s.state === 'busy');
  const dead = model.sessions.filter((s) => s.state === 'dead');
  const parts = [`${model.sessions.length} session${model.sessions.length === 1 ? '' : 's'}`];
  if (busy.length) parts.push(busy.length === 1 ? describeSession(busy[0], now) : `${busy.length} running`);
  if (dead.length) parts.push(`${dead.length} dead`);
  return `Python Session — ${parts.join(', ')}`;
}

/** Menus stay short: beyond this many sessions the panel is the place to look. */
export const MAX_LISTED_SESSIONS = 8;

export function trayMenu(model: TrayModel, now: number): MenuItemSpec[] {
  const separator: MenuItemSpec = { type: 'separator' };
  if (!model.connected) {
    return [
      { label: 'Python Session is not running', enabled: false },
      separator,
      { label: 'Start Python Session', action: { kind: 'start-daemon' } },
      separator,
      { label: 'Quit', action: { kind: 'quit' } },
    ];
  }
  const sessions = [...model.sessions].sort((a, b) => (a.name === 'default' ? -1 : b.name === 'default' ? 1 : a.name.localeCompare(b.name)));
  const busy = sessions.filter((s) => s.state === 'busy');
  const restartable = sessions.filter((s) => s.owned !== false && s.state !== 'closed');
  const items: MenuItemSpec[] = [];
  if (sessions.length === 0) {
    items.push({ label: 'No sessions yet', enabled: false });
  } else {
    for (const s of sessions.slice(0, MAX_LISTED_SESSIONS)) items.push({ label: describeSession(s, now), enabled: false });
    if (sessions.length > MAX_LISTED_SESSIONS) items.push({ label: `and ${sessions.length - MAX_LISTED_SESSIONS} more — see the panel`, enabled: false });
  }
  items.push(
    separator,
    { label: 'Open Panel', action: { kind: 'open-panel' } },
    {
      label: busy.length > 1 ? `Interrupt All (${busy.length} running)` : 'Interrupt All',
      enabled: busy.length > 0,
      action: { kind: 'interrupt-all' },
    },
    {
      type: 'submenu',
      label: 'Restart',
      enabled: restartable.length > 0,
      submenu: [
        ...restartable.slice(0, MAX_LISTED_SESSIONS).map((s): MenuItemSpec => ({ label: s.name, action: { kind: 'restart', session: s.name } })),
        separator,
        { label: 'All Sessions', enabled: restartable.length > 0, action: { kind: 'restart-all' } },
      ],
    },
    separator,
    registrationItem(model.claudeDesktop),
    separator,
    { label: 'Quit (Sessions Keep Running)', action: { kind: 'quit' } },
    { label: 'Quit and Stop Python Session', action: { kind: 'quit-and-stop' } },
  );
  return items;
}

function registrationItem(state: Registration): MenuItemSpec {
  switch (state) {
    case 'registered':
      return { type: 'checkbox', checked: true, label: 'Registered with Claude Desktop', toolTip: 'Click to remove it', action: { kind: 'unregister-claude-desktop' } };
    case 'stale':
      return { label: 'Update Registration with Claude Desktop', action: { kind: 'register-claude-desktop' } };
    case 'not-registered':
      return { type: 'checkbox', checked: false, label: 'Register with Claude Desktop', action: { kind: 'register-claude-desktop' } };
    case 'unknown':
      return { label: 'Register with Claude Desktop', action: { kind: 'register-claude-desktop' } };
  }
}

/** Claude Desktop's state from the panel API's client list. */
export function claudeDesktopState(clients: { id: string; state: string }[] | null): Registration {
  const state = clients?.find((c) => c.id === 'claude-desktop')?.state;
  if (state === 'current' || state === 'registered') return 'registered';
  if (state === 'stale') return 'stale';
  if (state === 'not-registered' || state === 'not-installed') return 'not-registered';
  return 'unknown';
}
