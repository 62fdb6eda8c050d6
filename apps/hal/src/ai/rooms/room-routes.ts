import type { PageContext, RoomEventEnvelope } from '@hal-ai/rooms';
import { SLASH_COMMANDS, toPublicAction } from '@hal-ai/rooms';
import { HalError, type RoomEvent } from '@hal-ai/spec';
import { Hono } from 'hono';
import type { AppEnv } from '../../platform/http/env.js';
import { eventStream, sseFrame } from '../../platform/http/event-stream.js';
import { readJsonObject } from '../../platform/http/json-body.js';
import { type RequireRecentDeps, requireRecent } from '../../platform/http/require-recent.js';
import { readConfirmation, type ThreeStep } from '../../platform/http/three-step.js';
import type { AiService } from '../ai-service.js';

/** What the room routes use: the AI rooms, and the three steps and re-authentication window approvals pass. */
export interface RoomRouteDeps extends RequireRecentDeps {
  ai: AiService;
  threeStep: ThreeStep;
}

/** Longest operator message the panel may send. */
const MAX_TEXT_LENGTH = 20_000;
/** Longest rejection reason. */
const MAX_REASON_LENGTH = 2_000;
/**
 * Shortest time between two writes of a message's later tokens on a room's event stream: about one frame of a
 * 60 Hz display, so they reach the panel as fast as it can show them, in a fraction of the socket writes.
 */
const EVENT_WRITE_INTERVAL_MS = 16;
/** Longest room title. */
const MAX_TITLE_LENGTH = 100;

/** Options of {@link createRoomRoutes}. */
export interface RoomRoutesOptions {
  /** Interval of the SSE comment heartbeat (default 15 s, SPEC §14). */
  heartbeatMs?: number;
}

function invalid(field: string, message: string): HalError {
  return new HalError('validation_failed', message, { details: { issues: [{ path: field, message }] } });
}

/** Refuses keys a route does not take, so a misspelt field is an error rather than silently ignored. */
function allowOnly(body: Record<string, unknown>, keys: readonly string[]): void {
  const unknown = Object.keys(body).filter((key) => !keys.includes(key));
  if (unknown.length > 0) {
    throw new HalError(
      'validation_failed',
      `Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      {
        details: { issues: unknown.map((key) => ({ path: key, message: 'unknown field' })) },
      },
    );
  }
}

/** The three-step confirmation fields of an approval, type-checked (their values are checked by threeStep). */
const CONFIRMATION_KEYS = [
  'confirmToken',
  'confirmImpact',
  'confirmIdentifiers',
  'confirmExecute',
  'confirmTainted',
] as const;

function checkConfirmationTypes(body: Record<string, unknown>): void {
  allowOnly(body, CONFIRMATION_KEYS);
  const issues: Array<{ path: string; message: string }> = [];
  if (body.confirmToken !== undefined && typeof body.confirmToken !== 'string') {
    issues.push({ path: 'confirmToken', message: 'must be a string' });
  }
  for (const key of ['confirmImpact', 'confirmExecute', 'confirmTainted'] as const) {
    if (body[key] !== undefined && typeof body[key] !== 'boolean')
      issues.push({ path: key, message: 'must be true' });
  }
  const identifiers = body.confirmIdentifiers;
  if (
    identifiers !== undefined &&
    (!Array.isArray(identifiers) || identifiers.some((identifier) => typeof identifier !== 'string'))
  ) {
    issues.push({ path: 'confirmIdentifiers', message: 'must be a list of strings' });
  }
  if (issues.length > 0) {
    throw new HalError('validation_failed', `Invalid confirmation: ${issues.map((i) => i.path).join(', ')}`, {
      details: { issues },
    });
  }
}

function readPage(context: unknown): PageContext | string | null {
  if (context === undefined || context === null) return null;
  if (typeof context !== 'object' || Array.isArray(context))
    throw invalid('context', 'context must be an object');
  const page = (context as Record<string, unknown>).page;
  if (page === undefined || page === null) return null;
  if (typeof page === 'string') {
    if (page.length > 2_000) throw invalid('context.page', 'page is too long');
    return page;
  }
  if (typeof page !== 'object' || Array.isArray(page)) {
    throw invalid('context.page', 'page must be a string or {url, title}');
  }
  const { url, title } = page as Record<string, unknown>;
  const result: PageContext = {};
  for (const [key, value] of [
    ['url', url],
    ['title', title],
  ] as const) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > 2_000) {
      throw invalid(`context.page.${key}`, `${key} must be a string of at most 2000 characters`);
    }
    result[key] = value;
  }
  return result;
}

/** An SSE frame's data: the event without its `type` (which is the frame's `event:`). */
function eventData(event: RoomEvent): string {
  const { type: _type, ...data } = event;
  return JSON.stringify(data);
}

function service(deps: RoomRouteDeps): AiService {
  return deps.ai;
}

async function requireRoom(ai: AiService, roomId: string) {
  const room = await ai.store.getRoom(roomId);
  if (!room) throw new HalError('not_found', `No room ${roomId}`);
  return room;
}

/**
 * The rooms API under `/ops/api/ai` (SPEC §13–§14): rooms, messages, live events (SSE),
 * proposal approval and rejection, and the slash command list. The session and CSRF checks come
 * from the app's `/ops` middleware; approving adds `requireRecent` (rejecting does not: saying no
 * is always safe), and approving a high-risk
 * proposal adds the three confirmations (`deps.threeStep`) with the impact and identifiers the
 * engine describes.
 *
 * @example
 * app.route('/ops/api/ai', createRoomRoutes(deps));
 */
export function createRoomRoutes(deps: RoomRouteDeps, options: RoomRoutesOptions = {}): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const recent = requireRecent(deps);
  const heartbeatMs = options.heartbeatMs ?? 15_000;

  routes.get('/commands', (c) => c.json({ commands: SLASH_COMMANDS }));

  routes.get('/rooms', async (c) => c.json({ rooms: await service(deps).listRooms() }));

  routes.patch('/rooms/:id', async (c) => {
    const ai = service(deps);
    const body = await readJsonObject(c);
    allowOnly(body, ['title', 'tokenBudget']);
    const title = body.title ?? null;
    if (title !== null && (typeof title !== 'string' || title.length > MAX_TITLE_LENGTH)) {
      throw invalid('title', `title must be a string of at most ${MAX_TITLE_LENGTH} characters`);
    }
    // The room's token budget (issue #18.7): a positive whole number of tokens, or null for none.
    const budget = body.tokenBudget;
    if (
      budget !== undefined &&
      budget !== null &&
      (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1 || budget > 1_000_000_000)
    ) {
      throw invalid('tokenBudget', 'tokenBudget must be a whole number of tokens (1 or more), or null');
    }
    const room = await requireRoom(ai, c.req.param('id'));
    // The rename is checked first (the unified room refuses it), so a refused request changes nothing.
    const renamed =
      body.title !== undefined || budget === undefined ? await ai.store.renameRoom(room.id, title) : room;
    return c.json({ room: budget !== undefined ? await ai.store.setRoomBudget(room.id, budget) : renamed });
  });

  routes.post('/rooms/:id/reset', async (c) => {
    const ai = service(deps);
    const room = await requireRoom(ai, c.req.param('id'));
    await ai.engine.resetRoom(room.id);
    return c.json({ room });
  });

  routes.post('/rooms/:id/messages', async (c) => {
    const ai = service(deps);
    const body = await readJsonObject(c);
    allowOnly(body, ['text', 'context']);
    const text = body.text;
    if (typeof text !== 'string') throw invalid('text', 'text must be a string');
    if (text.trim() === '') throw invalid('text', 'text is required');
    if (text.length > MAX_TEXT_LENGTH) {
      throw invalid('text', `text must be at most ${MAX_TEXT_LENGTH} characters`);
    }
    const page = readPage(body.context);
    const operator = c.get('operator');
    // Linked pages are fetched before the turn (SPEC §10); a failed fetch is an error block, never a failed post.
    const attachments = ai.web ? await ai.web.contextBlocks(text, operator.id) : [];
    // The engine reads the room (and answers not_found) itself: a second read here would cost every post.
    const result = await ai.engine.postMessage({
      roomId: c.req.param('id'),
      operator: { id: operator.id, username: operator.username },
      text,
      context: { page },
      ...(attachments.length > 0 ? { attachments } : {}),
    });
    return c.json(
      { message: result.message, turns: result.turns, ...(result.note ? { note: result.note } : {}) },
      202,
    );
  });

  routes.get('/rooms/:id/messages', async (c) => {
    const ai = service(deps);
    const raw = c.req.query('after') ?? '0';
    if (!/^\d{1,15}$/.test(raw)) throw invalid('after', 'after must be a non-negative integer');
    const afterSeq = Number(raw);
    const room = await requireRoom(ai, c.req.param('id'));
    const [messages, pending, actions] = await Promise.all([
      ai.store.listMessages(room.id, { afterSeq }),
      ai.pendingTurns(room.id),
      ai.store.listActions(room.id, { afterSeq }),
    ]);
    return c.json({ messages, pending, actions: actions.map(toPublicAction) });
  });

  routes.get('/rooms/:id/events', async (c) => {
    const ai = service(deps);
    const room = await requireRoom(ai, c.req.param('id'));
    const lastEventId = (c.req.header('last-event-id') ?? c.req.query('lastEventId'))?.trim();
    // A plain number is this process's id; anything else a shared hub's cursor (valid or not: the hub judges).
    const afterId =
      lastEventId !== undefined && /^\d{1,20}$/.test(lastEventId) ? Number(lastEventId) : undefined;
    const cursor =
      lastEventId && afterId === undefined && lastEventId.length <= 1000 ? lastEventId : undefined;
    return eventStream(c, {
      heartbeatMs,
      minIntervalMs: EVENT_WRITE_INTERVAL_MS,
      closing: ai.closing,
      open(push) {
        // Only a message's later tokens wait for the write interval: its first token (the moment a model starts
        // answering) and every other event go out at once.
        const streaming = new Set<string>();
        const urgent = (event: RoomEvent) => {
          if (event.type === 'delta') {
            if (streaming.has(event.messageId)) return false;
            streaming.add(event.messageId);
            return true;
          }
          if (event.type === 'message' && event.message.status !== 'streaming')
            streaming.delete(event.message.id);
          return true;
        };
        const resync = () =>
          push(
            sseFrame(
              'resync',
              ai.events.lastCursor?.(room.id) ?? String(ai.events.lastId(room.id) ?? afterId ?? 0),
              // The client knows its own last seq; it catches up from there (`?after=0` re-reads everything).
              JSON.stringify({
                reason: 'gap',
                catchUp: `/ops/api/ai/rooms/${room.id}/messages`,
                param: 'after',
              }),
            ),
          );
        // Replayed events are delivered synchronously inside subscribe, before any live one.
        const subscription = ai.events.subscribe(
          room.id,
          {
            ...(afterId !== undefined ? { afterId } : {}),
            ...(cursor !== undefined ? { cursor } : {}),
            // A shared hub lost events meant for this stream (its connection to the other instances dropped).
            onGap: resync,
          },
          (envelope: RoomEventEnvelope) =>
            push(
              sseFrame(
                envelope.event.type,
                envelope.cursor ?? String(envelope.id),
                eventData(envelope.event),
              ),
              urgent(envelope.event),
            ),
        );
        // The cursor is older than the buffer (or unknown here): the client catches up through `messages?after`.
        if (!subscription.replayed) resync();
        return () => subscription.unsubscribe();
      },
    });
  });

  routes.post('/actions/:id/approve', recent, async (c) => {
    const ai = service(deps);
    const actionId = c.req.param('id');
    const body = await readJsonObject(c);
    checkConfirmationTypes(body);
    // The status comes first: describing a decided action would run its impact check against a
    // target that has already changed and answer with that error instead of action_not_pending.
    const stored = await ai.store.getAction(actionId);
    if (!stored) throw new HalError('not_found', `No action ${actionId}`);
    if (stored.status !== 'proposed') {
      throw new HalError('action_not_pending', `Action ${actionId} is ${stored.status}`);
    }
    // A proposal made after reading web content may carry arguments a page planted: the operator must say they
    // checked them (SPEC §10). Asked before the three steps, so a high action never hands out a token first.
    if (stored.tainted && body.confirmTainted !== true) {
      throw new HalError(
        'taint_confirmation_required',
        'This proposal was made after reading web content: check its arguments, then approve with confirmTainted: true',
        { details: { tool: stored.tool, args: stored.args } },
      );
    }
    const operator = c.get('operator');
    // Only a high action is described here (its impact binds the three steps): a write action that the core would
    // refuse is executed and fails as itself, with the model told, as before.
    if (stored.risk === 'high') {
      const description = await ai.engine.describeAction(actionId);
      await deps.threeStep.check({
        operatorId: operator.id,
        action: 'ai.action.approve',
        target: `action:${actionId}`,
        impact: description.impact,
        identifiers: description.identifiers,
        confirmation: readConfirmation(body),
      });
    }
    const action = await ai.engine.approveAction({
      actionId,
      operator: { id: operator.id, username: operator.username },
    });
    return c.json({ action });
  });

  /**
   * `GET /ops/api/ai/actions/:id/impact` — what a pending proposal would change, for its card (SPEC §5, §14 shapes):
   * `200 {action, impact, identifiers, refusal}` where `impact` is the object the three steps show (a `summary`
   * line plus what changes, before → after; `null` for a tool without one, e.g. `web_fetch`), `identifiers` are
   * the action's own, and `refusal` is `null`, or `{code, message}` when HAL would refuse the action as it stands
   * (e.g. `invalid_state` after the target changed) — then `impact` is `null`. A decided action →
   * `409 action_not_pending`; an unknown one → `404 not_found`. Reading it needs only the session.
   */
  routes.get('/actions/:id/impact', async (c) => {
    const ai = service(deps);
    const actionId = c.req.param('id');
    const stored = await ai.store.getAction(actionId);
    if (!stored) throw new HalError('not_found', `No action ${actionId}`);
    if (stored.status !== 'proposed') {
      throw new HalError('action_not_pending', `Action ${actionId} is ${stored.status}`);
    }
    try {
      const description = await ai.engine.describeAction(actionId);
      return c.json({ ...description, refusal: null });
    } catch (error) {
      if (!HalError.isInstance(error) || error.code === 'internal_error') throw error;
      return c.json({
        action: toPublicAction(stored),
        impact: null,
        identifiers: [...stored.identifiers],
        refusal: { code: error.code, message: error.message },
      });
    }
  });

  // Saying no is always safe (SPEC §5): a reject needs the session and the CSRF token, never a re-entered password.
  routes.post('/actions/:id/reject', async (c) => {
    const ai = service(deps);
    const body = await readJsonObject(c);
    allowOnly(body, ['reason']);
    const reason = body.reason ?? '';
    if (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH) {
      throw invalid('reason', `reason must be a string of at most ${MAX_REASON_LENGTH} characters`);
    }
    const operator = c.get('operator');
    const action = await ai.engine.rejectAction({
      actionId: c.req.param('id'),
      operator: { id: operator.id, username: operator.username },
      reason,
    });
    return c.json({ action });
  });

  return routes;
}
