// Talking to the daemon: JSON requests, and the live event stream. The page is served by the
// daemon itself, so every request is same-origin and carries the panel's cookie.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Called when the daemon says the panel's key is no longer valid (it restarted). */
let onUnauthorized = () => {};
export function whenUnauthorized(handler) {
  onUnauthorized = handler;
}

export async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The daemon is not answering. It may have stopped; start it with `python-session-mcp serve` or from the tray.');
  }
  if (response.status === 401) onUnauthorized();
  let data = null;
  const text = await response.text();
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { error: text };
  }
  if (!response.ok) throw new ApiError(response.status, data?.error ?? `The daemon answered ${response.status}.`);
  return data;
}

export const get = (path) => request('GET', path);
export const post = (path, body = {}) => request('POST', path, body);

export const sessionPath = (name, rest = '') => `/api/sessions/${encodeURIComponent(name)}${rest}`;

/**
 * Opens the event stream and keeps it open: EventSource retries a dropped connection by itself,
 * but gives up for good on an error status, so after that we check why and try again ourselves.
 */
export function connectEvents(handlers, onStatus) {
  let source = null;
  let retryTimer = null;
  const open = () => {
    source = new EventSource('/api/events');
    source.addEventListener('open', () => onStatus('live'));
    source.addEventListener('error', () => {
      onStatus('reconnecting');
      if (source.readyState !== EventSource.CLOSED) return;
      clearTimeout(retryTimer);
      retryTimer = setTimeout(async () => {
        try {
          await get('/api/health');
        } catch (error) {
          if (error.status === 401 || error.status === 403) return onStatus('locked');
        }
        open();
      }, 2000);
    });
    for (const [name, handler] of Object.entries(handlers)) {
      source.addEventListener(name, (event) => {
        try {
          handler(JSON.parse(event.data));
        } catch (error) {
          console.error(`panel: handling ${name} failed`, error);
        }
      });
    }
  };
  open();
  return () => {
    clearTimeout(retryTimer);
    source?.close();
  };
}
