// The page's state, and a tiny publish/subscribe so each part redraws only what changed.

export const store = {
  /** name → SessionView from the daemon. */
  sessions: new Map(),
  /** Names of sessions that ended but left a log. */
  past: [],
  /** Sessions being started from this page (name → 'starting'), shown before the daemon has them. */
  pending: new Map(),
  view: 'sessions',
  selected: null,
  tab: 'log',
  /** connecting | live | reconnecting | locked */
  status: 'connecting',
  daemon: null,
};

const listeners = new Map();

export function on(topic, listener) {
  if (!listeners.has(topic)) listeners.set(topic, new Set());
  listeners.get(topic).add(listener);
  return () => listeners.get(topic).delete(listener);
}

export function emit(topic, payload) {
  for (const listener of listeners.get(topic) ?? []) {
    try {
      listener(payload);
    } catch (error) {
      console.error(`panel: a ${topic} listener failed`, error);
    }
  }
}

/** The selected session's view, or null (none selected, or it has ended). */
export function selectedSession() {
  return store.selected ? store.sessions.get(store.selected) ?? null : null;
}
