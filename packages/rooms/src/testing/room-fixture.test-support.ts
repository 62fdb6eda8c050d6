import { type ErrorInfo, HalError, type Room, type RoomEvent } from '@hal-ai/spec';
import { createToolRegistry, defineTool, type ToolSelection } from '@hal-ai/tools';
import * as v from 'valibot';
import { afterEach, expect } from 'vitest';
import { createRoomEngine } from '../room-engine.js';
import type { RemoteTurns, RoomAuditEntry, RoomEngine, RoomParticipant } from '../room-engine-types.js';
import { createRoomEventHub } from '../room-events.js';
import { createMemoryRoomStore } from '../room-memory-store.js';
import { isKnownNote } from '../room-notes.js';
import type { RoomStore } from '../room-store.js';
import type { TurnScheduler } from '../room-turn-scheduler.js';
import {
  createScriptedModel,
  type ScriptedLanguageModel,
  type ScriptStep,
} from './scripted-language-model.js';

/** The context fixture tools run with: counts executions per tool. */
export interface FixtureContext {
  executions: Record<string, number>;
  requests: Array<{ purpose: string; operator: string | null }>;
}

/** A participant of the fixture. */
export interface FixtureParticipantInput {
  id: string;
  name: string;
  active?: boolean;
  steps?: ScriptStep[];
  role?: string;
  traits?: string;
  instructions?: string;
  toolSelection?: ToolSelection;
}

/** Notes a fixture's store was asked to write whose code or params `NOTE_CODES` does not declare. */
const unknownNotes: unknown[] = [];

// Every test that uses a fixture (rooms and debates alike) also checks each note HAL wrote in it: a note whose code
// is not in `NOTE_CODES`, or whose params do not fill exactly that code's placeholders, fails the test.
afterEach(() => {
  const found = unknownNotes.splice(0);
  expect(found, 'notes with a code or params NOTE_CODES does not declare').toEqual([]);
});

/** Wraps a store so every note block it stores is checked against `NOTE_CODES` (see {@link unknownNotes}). */
function checkingNotes(store: RoomStore): RoomStore {
  const append = store.appendMessage.bind(store);
  store.appendMessage = (message) => {
    for (const block of message.content) {
      if (block.type === 'note' && !isKnownNote(block.code, block.params)) unknownNotes.push(block);
    }
    return append(message);
  };
  return store;
}

/** Builds an engine over a memory store with scripted models and a small HAL-like tool registry. */
export async function createRoomFixture(options: {
  participants: FixtureParticipantInput[];
  toolCallsPerTurn?: number;
  scheduler?: TurnScheduler;
  skill?: string;
  now?: () => Date;
  /** The host's redaction seam (`RoomEngineSettings.redact`). */
  redact?: <T>(value: T) => T;
  /** A store shared with another fixture (two processes on one database); default a fresh memory store. */
  store?: RoomStore;
  /** Starts this fixture's ids, so two fixtures on one store never mint the same id. */
  idPrefix?: string;
  /** The turns of the other processes on the store (`RoomEngineSettings.remoteTurns`). */
  remoteTurns?: RemoteTurns;
}) {
  const executions: Record<string, number> = {};
  const context: FixtureContext = { executions, requests: [] };
  const count = (name: string) => {
    executions[name] = (executions[name] ?? 0) + 1;
  };
  const registry = createToolRegistry<FixtureContext>([
    defineTool({
      name: 'hal_servers_list',
      description: 'List servers.',
      risk: 'read',
      args: v.object({ role: v.optional(v.string()) }),
      execute: (ctx: FixtureContext) => {
        count('hal_servers_list');
        return { servers: [{ id: 'srv-1', name: 'web-1', state: 'active' }], seen: ctx.requests.length };
      },
    }),
    defineTool({
      name: 'hal_incident_open',
      description: 'Open an incident.',
      risk: 'write',
      args: v.object({ key: v.pipe(v.string(), v.minLength(1)), title: v.string() }),
      execute: async (_ctx: FixtureContext, args) => {
        count('hal_incident_open');
        if (args.key === 'FAIL') throw new HalError('conflict', 'An incident with this key is open');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return { incident: { key: args.key, title: args.title, state: 'open' } };
      },
    }),
    defineTool({
      name: 'hal_config_set',
      description: 'Set a configuration value.',
      risk: 'high',
      args: v.object({ key: v.string(), value: v.string() }),
      identifiers: (args) => [args.key],
      // Like HAL's: a credential-looking value is refused before any proposal holds it.
      precheck: (_ctx: FixtureContext, args) => {
        if (args.value.startsWith('sk-')) throw new HalError('secret_not_allowed', 'Secrets go to the vault');
      },
      execute: (_ctx: FixtureContext, args) => {
        count('hal_config_set');
        return { set: args.key };
      },
    }),
    defineTool({
      name: 'hal_server_isolate',
      description: 'Isolate a server.',
      risk: 'high',
      args: v.object({ server: v.string(), reason: v.string() }),
      identifiers: (args) => [args.server],
      impact: (_ctx: FixtureContext, args) => ({ server: args.server, effect: 'traffic stops' }),
      execute: (_ctx: FixtureContext, args) => {
        count('hal_server_isolate');
        return { isolated: args.server };
      },
    }),
  ]);

  const store: RoomStore = checkingNotes(options.store ?? createMemoryRoomStore());
  const events = createRoomEventHub({ firstId: 0 });
  let counter = 0;
  const audits: RoomAuditEntry[] = [];
  const turnErrors: Array<{ connectionId: string; error: ErrorInfo }> = [];
  const errors: unknown[] = [];
  const models = new Map<string, ScriptedLanguageModel>();
  const participants = new Map<string, RoomParticipant>();
  for (const input of options.participants) {
    const model = createScriptedModel({ modelId: `${input.id}-model`, steps: input.steps ?? [] });
    models.set(input.id, model);
    participants.set(input.id, {
      id: input.id,
      name: input.name,
      active: input.active ?? true,
      identity: {
        role: input.role ?? '',
        traits: input.traits ?? '',
        instructions: input.instructions ?? '',
      },
      model,
      modelId: model.modelId,
      toolSelection: input.toolSelection ?? { preset: 'all' },
    });
  }

  // How often the engine asked for participants (they are database reads in HAL).
  const lookups = { list: 0, resolve: 0 };
  const engine: RoomEngine = createRoomEngine<FixtureContext>({
    store,
    events,
    registry,
    resolveParticipant: (id) => {
      lookups.resolve++;
      return participants.get(id);
    },
    listParticipants: () => {
      lookups.list++;
      return [...participants.values()].map((entry) => ({
        id: entry.id,
        name: entry.name,
        active: entry.active,
        identity: entry.identity,
      }));
    },
    skill: options.skill ?? '# HAL skill\nRules for the AI.',
    toolContext: (request) => {
      context.requests.push({ purpose: request.purpose, operator: request.operator?.username ?? null });
      return context;
    },
    newId: () => `${options.idPrefix ?? ''}id_${++counter}`,
    ...(options.now ? { clock: options.now } : {}),
    limits: { toolCallsPerTurn: options.toolCallsPerTurn ?? 20 },
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.remoteTurns ? { remoteTurns: options.remoteTurns } : {}),
    onAudit: (entry) => {
      audits.push(entry);
    },
    onTurnError: (connectionId, error) => {
      turnErrors.push({ connectionId, error });
    },
    onError: (error) => {
      errors.push(error);
    },
  });

  const unified = await store.ensureUnifiedRoom();
  const direct = new Map<string, Room>();
  for (const input of options.participants) {
    direct.set(input.id, await store.ensureDirectRoom({ id: input.id, name: input.name }));
  }
  const seen: Array<{ roomId: string; event: RoomEvent }> = [];
  for (const room of [unified, ...direct.values()]) {
    events.subscribe(room.id, {}, ({ roomId, event }) => seen.push({ roomId, event }));
  }

  const model = (id: string): ScriptedLanguageModel => {
    const found = models.get(id);
    if (!found) throw new Error(`no model ${id}`);
    return found;
  };
  const directRoom = (id: string): Room => {
    const found = direct.get(id);
    if (!found) throw new Error(`no room ${id}`);
    return found;
  };

  return {
    engine,
    store,
    events,
    registry,
    context,
    executions,
    audits,
    turnErrors,
    errors,
    participants,
    lookups,
    unified,
    directRoom,
    model,
    seen,
    operator: { id: 'op-1', username: 'admin' },
  };
}

/** The full text of a prompt (system and messages), for assertions. */
export function promptText(options: { prompt: Array<{ role: string; content: unknown }> }): string {
  return options.prompt
    .map(
      (message) =>
        `${message.role}: ${typeof message.content === 'string' ? message.content : JSON.stringify(message.content)}`,
    )
    .join('\n');
}
