import { setMaxListeners } from 'node:events';
import {
  type ActionRecord,
  createDebateEngine,
  createRoomEngine,
  createRoomEventHub,
  type DebateEngine,
  type DebateStore,
  type RoomAuditEntry,
  type RoomEngine,
  type RoomEngineLimits,
  type RoomEventHub,
  type RoomParticipant,
  type RoomStore,
  toPublicAction,
} from '@hal-ai/rooms';
import {
  type CallOptions,
  type Connection,
  type ErrorInfo,
  HalError,
  type LanguageModel,
  type Room,
} from '@hal-ai/spec';
import type { ToolRegistry } from '@hal-ai/tools';
import type { AuditActor, AuditLog } from '../domain/audit/types.js';
import type { Logger } from '../platform/logger.js';
import {
  createDebateWikiPublisher,
  type DebateWikiPublisher,
  type DebateWikiPublisherOptions,
} from './debates/debate-wiki-publisher.js';
import { createKyselyDebatePageStore } from './debates/kysely-debate-page-store.js';
import { createKyselyDebateStore } from './debates/kysely-debate-store.js';
import { createKyselyRoomStore, readRoomSequences } from './rooms/kysely-room-store.js';
import type { RoomTurnStops } from './rooms/room-turn-stops.js';
import { trackRoomWrites } from './rooms/room-write-log.js';
import type { SharedRoomEventHub } from './rooms/shared-room-event-hub.js';
import { createSqliteRoomEventHub } from './rooms/sqlite-room-event-hub.js';
import {
  createHalToolContext,
  createHalTools,
  type HalToolContext,
  type HalToolContextDeps,
} from './tools/index.js';
import type { HalWebAccess } from './web/hal-web-access.js';

/** What the rooms use of HAL: the database and clock of their store, the audit log, the logger, and what the tools' context needs. */
export interface AiServiceDeps extends HalToolContextDeps {
  audit: AuditLog;
  logger: Pick<Logger, 'warn' | 'error'>;
  /**
   * The vault's redaction: every secret it holds (and its encodings) is taken out of everything that enters the
   * rooms (SPEC §11.1) — the rooms get the function, never the vault.
   */
  vault: { redact<T>(value: T): T; heldLength?(text: string): number };
}

/**
 * What the rooms need of the connection service (`apps/hal/src/ai/connections`): a structural
 * subset, so the wiring depends on the contract rather than on one implementation.
 */
export interface RoomConnections {
  /** Public views in connection order. */
  list(): Promise<Connection[]>;
  get(id: string): Promise<Connection | undefined>;
  /** The connection's model, built from its settings and vault secret. */
  languageModel(id: string): Promise<LanguageModel>;
  /** A turn failed with a provider error: the service updates the connection's status. */
  reportProviderError(id: string, error: HalError): Promise<void>;
  onChange(
    listener: (event: { type: 'created' | 'updated' | 'deleted'; connection: Connection }) => void,
  ): () => void;
  /** The connections' shared revision: the views kept here are read again when another instance changed them. */
  revision(): Promise<number>;
  /** Applies a PATCH body (`/model <name>` sends `{model}`); absent → `/model` is unavailable. */
  update?(id: string, body: unknown, operator: { id: string; username: string }): Promise<Connection>;
  /** The context window of the connection's model as its provider's list reports it (absent → the debate default). */
  contextWindow?(id: string): Promise<number | undefined>;
}

/** Settings of {@link createAiService}. */
export interface AiServiceSettings {
  deps: AiServiceDeps;
  connections: RoomConnections;
  /** HAL's tool registry (default `createHalTools()`). */
  registry?: ToolRegistry<HalToolContext>;
  /** The skill document every system prompt starts with. */
  skill: string;
  /** Defaults to the kysely store over `deps.db`. */
  store?: RoomStore;
  /** The debates' store; defaults to the kysely store over `deps.db`. */
  debateStore?: DebateStore;
  /** The HAL process (`hal_instances.id`) the default store names on the turns, messages and actions it runs. */
  instanceId?: string;
  /** The default store compiles its hot queries once per shape (default true; `HAL_DATABASE_COMPILED_QUERIES`). */
  compiledQueries?: boolean;
  /** PostgreSQL: the default store appends a message in one statement (default true; `HAL_DATABASE_SINGLE_STATEMENT_APPEND`). */
  singleStatementAppend?: boolean;
  /**
   * Defaults, with the default store, to the hub shared with the other processes on the database
   * (`createSqliteRoomEventHub`: cards `hal mcp` posts reach this process's streams); with a given store, to an
   * in-process hub. Either keeps 500 events per room for replay. On PostgreSQL the runtime passes its
   * `createPostgresRoomEventHub` here (and closes it itself).
   */
  events?: RoomEventHub;
  /**
   * Turns other instances on the database run (PostgreSQL, `createRoomTurnStops`): a reset or a disabled connection
   * here stops theirs too, and their requests stop this one's. Absent → only this process's turns stop.
   */
  turnStops?: RoomTurnStops;
  limits?: RoomEngineLimits;
  newId?: () => string;
  /** HAL's web access: linked pages become context blocks, and `web_fetch` reads through it. Absent → neither. */
  web?: HalWebAccess;
  /**
   * Publishing debates to Wiki.js: `token` reads the API key (`wiki.api_token`) from the vault — only the publisher
   * gets it, never the rooms —; the rest are the client's edges. Absent → no key, so nothing is published.
   */
  wiki?: DebateWikiPublisherOptions & { token(): Promise<string | undefined> };
}

/** The AI rooms of a running HAL: engine, store and live events, kept in step with the connections. */
export interface AiService {
  engine: RoomEngine;
  /** The debate rooms (SPEC §9), driven over the same engine, store and events. */
  debates: DebateEngine;
  /** Publishes the debates to Wiki.js after every round and at the end (`publishing` of a debate's view). */
  wiki: DebateWikiPublisher;
  store: RoomStore;
  events: RoomEventHub;
  connections: RoomConnections;
  /** HAL's web access, if it has one (the messages route fetches linked pages through it). */
  web: HalWebAccess | undefined;
  /**
   * The rooms as the panel shows them: the unified room first, then one direct room per
   * connection in connection order (missing ones created, rooms of deleted connections removed).
   */
  listRooms(): Promise<Room[]>;
  /** Turns currently running in a room (`pending` of the messages route). */
  pendingTurns(roomId: string): Promise<number>;
  /**
   * Aborted when {@link AiService.close} starts: long-lived readers (the SSE event streams) end
   * on it, so a shutdown does not wait for clients to hang up.
   */
  readonly closing: AbortSignal;
  /** Ends live streams, stops following connection changes, cancels running turns and waits for background work. */
  close(): Promise<void>;
}

const PROVIDER_ERROR = /^(provider_|cli_)/;

/**
 * A model that resolves the connection's real model on each call, so a replaced key or a
 * refreshed OAuth token is used at once, and a connection that cannot build a model (no key,
 * CLI gone) fails the turn with its own error code instead of breaking the room.
 */
function lazyModel(connections: RoomConnections, connection: Connection): LanguageModel {
  const resolve = () => connections.languageModel(connection.id);
  return {
    provider: connection.provider,
    modelId: connection.model ?? 'default',
    doGenerate: async (options: CallOptions) => (await resolve()).doGenerate(options),
    doStream: async (options: CallOptions) => (await resolve()).doStream(options),
  };
}

/**
 * Builds the room engine from HAL's pieces: participants are the connections (active ⇔ status
 * `active`), each model comes from `connections.languageModel`, tools from the registry with the
 * connection's selection, the tool context acts as `ai:<connectionId>` (or `mcp:<client>` for
 * an MCP request), audit entries go to the hash-chained audit log (redacted there), and provider
 * errors go back to the connection service.
 *
 * @example
 * const ai = createAiService({ deps, connections, registry: createHalTools(), skill: await loadSkill() });
 * await ai.engine.recoverInterrupted();
 */
export function createAiService(settings: AiServiceSettings): AiService {
  const { deps, connections } = settings;
  const registry = settings.registry ?? createHalTools();
  const tracked = settings.store
    ? undefined
    : trackRoomWrites(
        createKyselyRoomStore(deps.db, deps.clock, {
          instanceId: settings.instanceId ?? null,
          compiledQueries: settings.compiledQueries ?? true,
          singleStatementAppend: settings.singleStatementAppend ?? true,
        }),
      );
  const store = settings.store ?? (tracked as NonNullable<typeof tracked>).store;
  const localEvents = () =>
    createRoomEventHub({
      bufferSize: 500,
      onListenerError: (error) => deps.logger.warn({ err: error }, 'room event listener failed'),
    });
  const shared: SharedRoomEventHub | undefined =
    settings.events || !tracked
      ? undefined
      : createSqliteRoomEventHub({
          store: tracked.store,
          writes: tracked.writes,
          readSequences: readRoomSequences(deps.db),
          local: localEvents(),
          onError: (error) =>
            deps.logger.warn({ err: error }, 'watching the rooms of other processes failed'),
        });
  const events = settings.events ?? shared ?? localEvents();
  const actions = {
    async get(id: string) {
      const record = await store.getAction(id);
      return record ? toPublicAction(record) : undefined;
    },
    async pending() {
      return (await store.listActionsByStatus('proposed')).map(toPublicAction);
    },
  };
  const skill = async () => settings.skill;

  // The connections' views, read once and kept until the service reports a change or the shared revision moves
  // (another instance changed a connection): every post and every turn asks for participants, and each read was a
  // query plus a view per connection, where checking the revision is one primary-key lookup.
  let views: { revision: number; list: Promise<Map<string, Connection>> } | undefined;
  const connectionViews = async (): Promise<Map<string, Connection>> => {
    const revision = await connections.revision();
    if (!views || views.revision !== revision) {
      const pending = Promise.resolve(connections.list()).then(
        (list) => new Map(list.map((connection) => [connection.id, connection])),
      );
      const entry = { revision, list: pending };
      views = entry;
      // A failed read is not kept: the next call reads again.
      pending.catch(() => {
        if (views === entry) views = undefined;
      });
    }
    return views.list;
  };

  const participant = (connection: Connection): RoomParticipant => ({
    id: connection.id,
    name: connection.name,
    active: connection.status === 'active',
    identity: { ...connection.identity },
    model: lazyModel(connections, connection),
    modelId: connection.model ?? 'default',
    toolSelection: { preset: connection.tools.preset, enabled: [...connection.tools.enabled] },
    reasoning: connection.reasoning,
  });

  const actorFor = async (connectionId: string | null, actionId: string | null): Promise<AuditActor> => {
    if (connectionId) return `ai:${connectionId}`;
    const record: ActionRecord | undefined = actionId ? await store.getAction(actionId) : undefined;
    return `mcp:${record?.clientName ?? 'unknown'}`;
  };

  const engine = createRoomEngine<HalToolContext>({
    store,
    events,
    registry,
    redact: (value) => deps.vault.redact(value),
    ...(deps.vault.heldLength ? { redactHeld: (text: string) => deps.vault.heldLength?.(text) ?? 0 } : {}),
    skill: settings.skill,
    clock: () => new Date(deps.clock.now()),
    ...(settings.newId ? { newId: settings.newId } : {}),
    ...(settings.limits ? { limits: settings.limits } : {}),
    ...(settings.turnStops ? { remoteTurns: settings.turnStops } : {}),
    async resolveParticipant(connectionId) {
      const connection = (await connectionViews()).get(connectionId);
      return connection ? participant(connection) : undefined;
    },
    async listParticipants() {
      return [...(await connectionViews()).values()].map((connection) => ({
        id: connection.id,
        name: connection.name,
        active: connection.status === 'active',
        identity: { ...connection.identity },
      }));
    },
    async toolContext(request) {
      return createHalToolContext(deps, {
        actor: await actorFor(request.connectionId, request.actionId),
        actions,
        skill,
        ...(settings.web ? { web: settings.web } : {}),
      });
    },
    async onAudit(entry: RoomAuditEntry) {
      await deps.audit.append({
        actor: entry.actor,
        action: entry.action,
        target: entry.target,
        details: entry.details,
      });
    },
    async onTurnError(connectionId: string, error: ErrorInfo) {
      if (!PROVIDER_ERROR.test(error.code)) return;
      await connections.reportProviderError(connectionId, new HalError(error.code, error.message));
    },
    ...(connections.update
      ? {
          commands: {
            async setModel(connectionId: string, model: string, operator: { id: string; username: string }) {
              // The connection service refuses a model missing from the checked list (model_unavailable).
              const updated = await connections.update?.(connectionId, { model }, operator);
              return updated ? { name: updated.name, model: updated.model ?? model } : undefined;
            },
          },
        }
      : {}),
    onError(error) {
      deps.logger.error({ err: error }, 'room engine background error');
    },
  });

  const debates = createDebateEngine({
    rooms: engine,
    roomStore: store,
    events,
    store: settings.debateStore ?? createKyselyDebateStore(deps.db),
    resolveParticipant: async (connectionId) => {
      const connection = (await connectionViews()).get(connectionId);
      return connection ? participant(connection) : undefined;
    },
    // A debate compacts its older rounds by the smallest context window its models' lists report.
    contextWindowOf: (connectionId) => connections.contextWindow?.(connectionId),
    clock: () => new Date(deps.clock.now()),
    ...(settings.newId ? { newId: settings.newId } : {}),
    // The same boundary as the rooms': the debate's own rows feed its export and every DR snapshot.
    redact: (value) => deps.vault.redact(value),
    // Never awaited by a round: publishing runs beside the debate, however slow or broken the wiki is.
    onMilestone: (milestone) => wiki.publish(milestone),
    onError(error) {
      deps.logger.warn({ err: error }, 'debate background error');
    },
  });
  const { token: wikiToken, ...wikiOptions } = settings.wiki ?? { token: async () => undefined };
  const wiki = createDebateWikiPublisher(
    {
      pages: createKyselyDebatePageStore(deps.db),
      clock: deps.clock,
      setting: (key) => deps.core.settings.value(key),
      token: wikiToken,
      snapshot: (debateId) => debates.snapshot(debateId),
      note: (debateId, said) => debates.postNote(debateId, said),
      redact: (value) => deps.vault.redact(value),
      logger: deps.logger,
    },
    wikiOptions,
  );

  // Room changes follow connection changes; a failed sync is retried by the next listRooms().
  let syncing: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = syncing.then(work, work);
    syncing = next.catch(() => undefined);
    return next;
  };
  const syncRooms = () =>
    serialized(async () => {
      const list = await connections.list();
      const unified = await store.ensureUnifiedRoom();
      const direct: Room[] = [];
      for (const connection of list) {
        direct.push(await store.ensureDirectRoom({ id: connection.id, name: connection.name }));
      }
      const known = new Set(list.map((connection) => connection.id));
      for (const room of await store.listRooms()) {
        if (room.kind === 'direct' && room.connectionId && !known.has(room.connectionId)) {
          engine.cancelTurnsOf(room.connectionId);
          await store.deleteDirectRoom(room.connectionId);
        }
      }
      // Debate rooms come after the direct rooms (SPEC §9), oldest first.
      const debateRooms = (await store.listRooms()).filter((room) => room.kind === 'debate');
      return [unified, ...direct, ...debateRooms];
    });
  const unsubscribe = connections.onChange((event) => {
    views = undefined;
    const { connection } = event;
    if (event.type === 'deleted' || connection.status !== 'active') {
      engine.cancelTurnsOf(connection.id);
      // The other instances' turns of the connection stop too; nothing here waits for them.
      settings.turnStops
        ?.ask({ connectionId: connection.id })
        .catch((error) =>
          deps.logger.warn({ err: error }, 'asking the other instances to stop turns failed'),
        );
    }
    const work =
      event.type === 'deleted'
        ? serialized(() => store.deleteDirectRoom(connection.id))
        : serialized(() => store.ensureDirectRoom({ id: connection.id, name: connection.name }));
    work.catch((error) => deps.logger.error({ err: error }, 'room sync failed'));
  });

  // Another instance's reset or disable stops this one's turns as the local one would.
  const stopRequests = settings.turnStops?.onStopRequest((scope) =>
    scope.roomId !== undefined
      ? engine.cancelTurnsIn(scope.roomId)
      : engine.cancelTurnsOf(scope.connectionId),
  );

  const shutdown = new AbortController();
  let closed: Promise<void> | undefined;
  // Every open event stream listens for the shutdown: many listeners are expected here, not a leak.
  setMaxListeners(0, shutdown.signal);
  return {
    engine,
    debates,
    wiki,
    web: settings.web,
    store,
    events,
    connections,
    closing: shutdown.signal,
    listRooms: syncRooms,
    async pendingTurns(roomId) {
      return (await store.listTurns({ status: 'running', roomId })).length;
    },
    close() {
      // The server closes the rooms first (to end open SSE streams), then the runtime closes everything:
      // the second call waits for the first instead of closing the event hub and web client twice.
      closed ??= (async () => {
        shutdown.abort();
        unsubscribe();
        stopRequests?.();
        // A shutdown must not wait for a stalled provider: running turns end as cancelled.
        for (const connection of await connections.list().catch(() => []))
          engine.cancelTurnsOf(connection.id);
        await debates.close();
        // A stalled wiki must not hold the shutdown: its calls in flight are aborted.
        await wiki.close();
        await engine.idle();
        await debates.idle();
        await syncing;
        await shared?.close();
        await settings.web?.close();
      })();
      return closed;
    },
  };
}
