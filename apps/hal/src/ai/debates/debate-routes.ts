/**
 * The debates API under `/ops/api/ai` (SPEC §13–§14): list and create debates, one debate with its rounds (and its
 * working document's versions and the latest diff), the operator's controls and the Markdown export. Every route is
 * behind the session and CSRF middleware of `/ops`; a control that does not fit the state answers
 * `409 debate_not_running`, a bad cast `400 debate_invalid`. Live changes go out on the debate room's own event
 * stream (`GET /rooms/:id/events`) as `debate` events.
 */
import { diffDocumentVersions } from '@hal-ai/rooms';
import { HalError } from '@hal-ai/spec';
import { Hono } from 'hono';
import * as v from 'valibot';
import { parseInput } from '../../domain/core/core-support.js';
import type { AppEnv } from '../../platform/http/env.js';
import { readJsonObject } from '../../platform/http/json-body.js';
import type { AiService } from '../ai-service.js';

/** What the debate routes use: the AI rooms (their debate engine). */
export interface DebateRouteDeps {
  ai: AiService;
}

const id = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const words = v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(20_000));

/** `POST /debates` (SPEC §14). Counts within sane limits; the cast itself is checked by the engine. */
const CreateDebateBody = v.strictObject({
  topic: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(500)),
  moderatorId: id,
  debaterIds: v.pipe(v.array(id), v.maxLength(8)),
  maxRounds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50))),
  tokenBudget: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1000), v.maxValue(50_000_000))),
});
const WordsBody = v.strictObject({ text: words });
const EmptyBody = v.strictObject({});
const version = v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number));

/** Creates the debate routes (mounted at `/ops/api/ai`). */
export function createDebateRoutes(deps: DebateRouteDeps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const debates = () => deps.ai.debates;
  const operatorOf = (c: { get(key: 'operator'): { id: string; username: string } }) => {
    const operator = c.get('operator');
    return { id: operator.id, username: operator.username };
  };

  routes.get('/debates', async (c) => c.json({ debates: await debates().list() }));

  routes.post('/debates', async (c) => {
    const body = parseInput(CreateDebateBody, await readJsonObject(c));
    const debate = await debates().create({
      topic: body.topic,
      moderatorId: body.moderatorId,
      debaterIds: body.debaterIds,
      ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}),
      ...(body.tokenBudget !== undefined ? { tokenBudget: body.tokenBudget } : {}),
      operator: operatorOf(c),
    });
    return c.json({ debate }, 201);
  });

  /**
   * `GET /debates/:id` → `{debate, rounds, documents, diff, publishing}`: `documents` are the working document's
   * versions (oldest first), `diff` the line diff from `?from=` (default: the version before the current) to `?to=`
   * (default: the current), and `publishing` where its Wiki.js pages stand (`{configured, pages, nextRetryAt}`).
   */
  routes.get('/debates/:id', async (c) => {
    const { debate, rounds } = await debates().get(c.req.param('id'));
    const documents = await debates().documentVersions(debate.id);
    const query = parseInput(
      v.strictObject({ from: v.optional(version), to: v.optional(version) }),
      c.req.query(),
    );
    const to = query.to ?? debate.document.version;
    const from = query.from ?? Math.max(0, to - 1);
    const find = (n: number) => {
      const found = documents.find((document) => document.version === n);
      if (!found) throw new HalError('not_found', `No version ${n} of this working document`);
      return found;
    };
    return c.json({
      debate,
      rounds,
      documents,
      diff: { from, to, lines: diffDocumentVersions(find(from), find(to)) },
      publishing: await deps.ai.wiki.state(debate.id),
    });
  });

  for (const control of ['inject', 'redirect', 'answer'] as const) {
    routes.post(`/debates/:id/${control}`, async (c) => {
      const body = parseInput(WordsBody, await readJsonObject(c));
      const debate = await debates()[control](c.req.param('id'), {
        text: body.text,
        operator: operatorOf(c),
      });
      return c.json({ debate });
    });
  }
  for (const control of ['pause', 'resume', 'stop'] as const) {
    routes.post(`/debates/:id/${control}`, async (c) => {
      parseInput(EmptyBody, await readJsonObject(c));
      const debate = await debates()[control](c.req.param('id'), operatorOf(c));
      return c.json({ debate });
    });
  }

  routes.get('/debates/:id/export', async (c) => {
    const { debate } = await debates().get(c.req.param('id'));
    const markdown = await debates().exportMarkdown(debate.id);
    return c.body(markdown, 200, {
      'content-type': 'text/markdown; charset=utf-8',
      // The slug may be Korean: an ASCII fallback name, and the real one percent-encoded (RFC 6266).
      'content-disposition': `attachment; filename="debate.md"; filename*=UTF-8''${encodeURIComponent(`debate-${debate.slug}.md`)}`,
    });
  });

  return routes;
}
