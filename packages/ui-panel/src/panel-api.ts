/** An error answer of the HAL API: `{error: {code, message, …}}` with its HTTP status. */
export class PanelHttpError extends Error {
  /** HTTP status. */
  readonly status: number;
  /** The stable error code (`reauth_required`, `three_step_required`, …). */
  readonly code: string;
  /** The whole `error` object (impact, identifiers, confirmToken, participants, …). */
  readonly details: Record<string, unknown>;

  constructor(status: number, details: Record<string, unknown>) {
    super(typeof details.message === 'string' ? details.message : `HTTP ${status}`);
    this.name = 'PanelHttpError';
    this.status = status;
    this.code = typeof details.code === 'string' ? details.code : 'http_error';
    this.details = details;
  }
}

/** Settings of {@link createPanelApi}. */
export interface PanelApiSettings {
  /** Default: the global `fetch` (same origin, cookies included). */
  fetch?: typeof fetch;
  /** Prefix of every path (default `''`: same origin). */
  baseUrl?: string;
}

/** The session as `GET /ops/api/session` reports it. */
export interface PanelSession {
  operator: { id: string; username: string };
  csrfToken: string;
  recentAuthUntil: number;
}

/** A small JSON client of the HAL API that adds `X-CSRF-Token` to every state-changing request. */
export interface PanelApi {
  session(): Promise<PanelSession>;
  get<T>(path: string): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** The fetch in use (the event stream reads with it). */
  fetch: typeof fetch;
  baseUrl: string;
}

/**
 * Creates the API client. The CSRF token is read once from `GET /ops/api/session`; a `csrf_failed`
 * answer re-reads it and retries once (the session may have been renewed in another tab).
 *
 * @example
 * const api = createPanelApi();
 * const { rooms } = await api.get<{ rooms: Room[] }>('/ops/api/ai/rooms');
 */
export function createPanelApi(settings: PanelApiSettings = {}): PanelApi {
  const doFetch = settings.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const baseUrl = settings.baseUrl ?? '';
  let session: Promise<PanelSession> | undefined;

  async function request<T>(method: string, path: string, body?: unknown, retry = true): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (method !== 'GET') {
      headers['X-CSRF-Token'] = (await api.session()).csrfToken;
      if (body !== undefined) headers['content-type'] = 'application/json';
    }
    const response = await doFetch(`${baseUrl}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (response.status === 204) return undefined as T;
    const payload = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) {
      const error = new PanelHttpError(
        response.status,
        (payload.error as Record<string, unknown> | undefined) ?? {
          code: 'http_error',
          message: `HTTP ${response.status}`,
        },
      );
      if (error.code === 'csrf_failed' && retry) {
        session = undefined;
        return request(method, path, body, false);
      }
      throw error;
    }
    return payload as T;
  }

  const api: PanelApi = {
    fetch: doFetch,
    baseUrl,
    session() {
      session ??= request<PanelSession>('GET', '/ops/api/session').catch((error) => {
        session = undefined;
        throw error;
      });
      return session;
    },
    get: (path) => request('GET', path),
    send: (method, path, body) => request(method, path, body),
  };
  return api;
}
