import { Hono, type MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../platform/http/env.js';
import { eventStream, sseFrame } from '../../platform/http/event-stream.js';
import { readJsonObject } from '../../platform/http/json-body.js';
import type { ShellEvent, ShellService } from './shell-sessions.js';

/** What {@link createShellRoutes} is built from. */
export interface ShellRouteDependencies {
  shells: ShellService;
  /** The `requireRecent` guard of the host: starting a terminal is a sensitive action. */
  requireRecent: MiddlewareHandler<AppEnv>;
  /** Ends open streams when HAL stops. */
  closing?: AbortSignal;
  /** Comment heartbeat of the output stream. Default 15 s. */
  heartbeatMs?: number;
}

function frameOf(event: ShellEvent): string {
  const id = String(event.seq);
  switch (event.type) {
    case 'output':
      return sseFrame('output', id, JSON.stringify({ data: event.data.toString('base64') }));
    case 'exit':
      return sseFrame('exit', id, JSON.stringify({ exitCode: event.exitCode }));
    case 'connection':
      return sseFrame('connection', id, JSON.stringify({ connection: event.connection }));
  }
}

function cursorOf(header: string | undefined): number | undefined {
  return header !== undefined && /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : undefined;
}

/**
 * The login terminal routes under `/ops/api/ai` (SPEC §13–§14): `GET /shell` → `{shells}` (live ones),
 * `POST /shell {tool, command, cols?, rows?, connectionId?}` → `201 {shell}` (requireRecent),
 * `POST /shell/:id/input {data}` and `POST /shell/:id/resize {cols, rows}` → `204`, `GET /shell/:id/stream`
 * (SSE `output {data}` base64, `exit {exitCode}`, then `connection {connection}` when one was checked again;
 * `Last-Event-ID` resumes), `DELETE /shell/:id` → `204`, `POST /shell/kill-all` → `{killed}`. CSRF comes from
 * the `/ops` middleware like every state change.
 *
 * @example
 * app.route('/ops/api/ai', createShellRoutes({ shells, requireRecent: requireRecent(deps) }));
 */
export function createShellRoutes(dependencies: ShellRouteDependencies): Hono<AppEnv> {
  const { shells } = dependencies;
  const routes = new Hono<AppEnv>();

  routes.get('/shell', (c) => c.json({ shells: shells.list(c.get('operator')) }));

  routes.post('/shell', dependencies.requireRecent, async (c) => {
    const shell = await shells.start(c.get('operator'), await readJsonObject(c));
    return c.json({ shell }, 201);
  });

  // Registered before `/shell/:id/…` so "kill-all" is never read as an id.
  routes.post('/shell/kill-all', async (c) => c.json({ killed: await shells.endAll(c.get('operator')) }));

  routes.post('/shell/:id/input', async (c) => {
    shells.input(c.get('operator'), c.req.param('id'), await readJsonObject(c));
    return c.body(null, 204);
  });

  routes.post('/shell/:id/resize', async (c) => {
    shells.resize(c.get('operator'), c.req.param('id'), await readJsonObject(c));
    return c.body(null, 204);
  });

  routes.delete('/shell/:id', async (c) => {
    await shells.end(c.get('operator'), c.req.param('id'));
    return c.body(null, 204);
  });

  routes.get('/shell/:id/stream', (c) => {
    const operator = c.get('operator');
    const id = c.req.param('id');
    const after = cursorOf(c.req.header('last-event-id'));
    // Checked before the response starts, so an unknown id is a plain 404 shell_not_found.
    shells.get(operator, id);
    const finished = new AbortController();
    const closing = dependencies.closing;
    closing?.addEventListener('abort', () => finished.abort(), { once: true });
    return eventStream(c, {
      heartbeatMs: dependencies.heartbeatMs ?? 15_000,
      closing: finished.signal,
      open(push) {
        try {
          return shells.subscribe(
            operator,
            id,
            after,
            (event) => push(frameOf(event), event.type !== 'output'),
            () => queueMicrotask(() => finished.abort()),
          );
        } catch {
          // Ended and forgotten between the check and the start of the body.
          queueMicrotask(() => finished.abort());
          return () => {};
        }
      },
    });
  });

  return routes;
}
