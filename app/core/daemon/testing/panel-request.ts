/** A request to the panel's API as the tests make it: as the page does (its cookie), as the tray and scripts do (a Bearer token), or with no credentials. */
import { cookieName } from '../panel/auth.js';
import type { PanelServer } from '../panel/server.js';

export type PanelCaller = 'page' | 'script' | 'nobody';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answer's shape depends on the route
export async function panelRequest(panel: PanelServer, method: 'GET' | 'POST', path: string, body?: unknown, as: PanelCaller = 'script', token = panel.token): Promise<{ status: number; data: any }> {
  const auth: Record<string, string> = as === 'page' ? { Cookie: `${cookieName(panel.port)}=${token}` } : as === 'script' ? { Authorization: `Bearer ${token}` } : {};
  const res = await fetch(new URL(path.slice(1), panel.baseUrl), {
    method,
    headers: { ...auth, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
  });
  const text = await res.text();
  try {
    return { status: res.status, data: JSON.parse(text) };
  } catch {
    return { status: res.status, data: text };
  }
}
