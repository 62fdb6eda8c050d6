import fs from 'node:fs';
import { Readable } from 'node:stream';
import { HalError } from '@hal-ai/spec';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import * as v from 'valibot';
import { readJsonInput } from '../../platform/http/json-body.js';
import { AGENT_NAME_PATTERN } from './agent-names.js';
import type { AgentQueue } from './agent-queue.js';
import { isAgentTokenShaped, type ResolveAgentToken } from './agent-token.js';

/** What the agent routes need: the queue remote agents share, and the token → server lookup. */
export interface AgentRoutesSettings {
  queue: AgentQueue;
  resolveAgentToken: ResolveAgentToken;
  /** Longest long poll an agent may ask for (ms, default 25 s — under common proxy idle timeouts). */
  maxWaitMs?: number;
  /** Largest result body accepted (bytes, default 1 MiB). */
  maxResultBytes?: number;
}

/** What the agent routes read of the runtime. Without `agents.remote` every route answers `404 not_found`. */
export interface AgentRoutesDeps {
  agents?: { remote?: AgentRoutesSettings | undefined } | undefined;
}

interface AgentEnv {
  Variables: { serverId: string };
}

const MAX_LOG_LINES = 2000;
const outcomeSchema = v.strictObject({
  ok: v.boolean(),
  result: v.optional(v.unknown()),
  error: v.optional(
    v.object({ code: v.pipe(v.string(), v.maxLength(64)), message: v.pipe(v.string(), v.maxLength(4000)) }),
  ),
  logs: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(4000))), v.maxLength(MAX_LOG_LINES)), []),
});

function errorResponse(error: unknown): Response {
  const halError = HalError.isInstance(error) ? error : new HalError('internal_error', 'Internal error');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (halError.code === 'unauthenticated') headers['www-authenticate'] = 'Bearer realm="hal-agent"';
  return new Response(JSON.stringify(halError.toJSON()), { status: halError.status, headers });
}

/**
 * The HTTP side of remote agents, mounted at `/agent/api` outside the operator session and CSRF checks:
 * each request carries `Authorization: Bearer <agent token>`, which names the one server it may act for.
 *
 * - `GET /next?waitS=25` — long poll: `{serverId, command: {id, op, args} | null}`.
 * - `POST /results/:id` `{ok, result | error, logs}` — `204`; only for a command of the same server.
 * - `GET /artifacts/:module/:version` — the `.tar.gz` of a deploy command this server is carrying out.
 *
 * @example
 * app.route('/agent/api', createAgentRoutes({ agents: { remote: { queue, resolveAgentToken } } }));
 */
export function createAgentRoutes(deps: AgentRoutesDeps): Hono<AgentEnv> {
  // Read on every request, not captured once: HAL may enable remote agents after building the app.
  const settings = () => deps.agents?.remote;
  const app = new Hono<AgentEnv>();
  app.onError((error) => errorResponse(error));

  app.use('*', async (c, next) => {
    const remote = settings();
    if (!remote) throw new HalError('not_found', 'Remote agents are not enabled on this HAL');
    const header = c.req.header('authorization') ?? '';
    const match = /^Bearer ([^\s]+)$/i.exec(header);
    const token = match?.[1];
    const serverId = token && isAgentTokenShaped(token) ? await remote.resolveAgentToken(token) : null;
    if (!serverId) throw new HalError('unauthenticated', 'Missing or unknown agent token');
    c.set('serverId', serverId);
    await next();
  });

  app.get('/next', async (c) => {
    const remote = settings() as AgentRoutesSettings;
    const maxWaitMs = remote.maxWaitMs ?? 25_000;
    const asked = Number(c.req.query('waitS') ?? '25');
    const waitMs = Number.isFinite(asked) ? Math.min(Math.max(0, asked * 1000), maxWaitMs) : maxWaitMs;
    const serverId = c.get('serverId');
    const signal = c.req.raw.signal;
    const command = await remote.queue.next(serverId, { waitMs, signal });
    if (command) {
      // The agent may have gone between our last look and now; then nobody reads this answer, and the
      // command waits for the next poll instead of timing out unseen.
      const requeue = () => remote.queue.requeue(serverId, command.id);
      if (signal.aborted) requeue();
      else signal.addEventListener('abort', requeue, { once: true });
    }
    return c.json({ serverId, command });
  });

  app.post(
    '/results/:id',
    bodyLimit({
      maxSize: deps.agents?.remote?.maxResultBytes ?? 1024 * 1024,
      onError: () => {
        throw new HalError('payload_too_large', 'Result body is too large');
      },
    }),
    async (c) => {
      const remote = settings() as AgentRoutesSettings;
      // A malformed result is `400 validation_failed` with its issues, as on every JSON route.
      const parsed = await readJsonInput(c, outcomeSchema);
      const outcome = {
        ok: parsed.ok,
        logs: parsed.logs,
        ...(parsed.result === undefined ? {} : { result: parsed.result }),
        ...(parsed.error === undefined ? {} : { error: parsed.error }),
      };
      remote.queue.complete(c.get('serverId'), c.req.param('id'), outcome);
      return c.body(null, 204);
    },
  );

  app.get('/artifacts/:module/:version', async (c) => {
    const remote = settings() as AgentRoutesSettings;
    const module = c.req.param('module');
    const version = c.req.param('version');
    // Only the artifact of a deploy this very server is carrying out: a token is no key to every release.
    const artifact =
      AGENT_NAME_PATTERN.test(module) && AGENT_NAME_PATTERN.test(version)
        ? remote.queue.artifactFor(c.get('serverId'), module, version)
        : undefined;
    if (!artifact) throw new HalError('not_found', 'No deploy of this artifact is pending for this server');
    const stat = await fs.promises.stat(artifact.path).catch(() => null);
    if (!stat?.isFile()) throw new HalError('not_found', 'The artifact file is missing on HAL');
    const stream = Readable.toWeb(fs.createReadStream(artifact.path)) as ReadableStream<Uint8Array>;
    return new Response(stream, {
      status: 200,
      headers: {
        'content-type': 'application/gzip',
        'content-length': String(stat.size),
        'x-artifact-sha256': artifact.sha256,
      },
    });
  });

  return app;
}
