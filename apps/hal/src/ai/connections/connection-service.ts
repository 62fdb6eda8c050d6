import { randomBytes } from 'node:crypto';
import {
  CONNECTION_PROVIDER_PRESETS,
  type ConnectionAuthMethod,
  type ConnectionProviderPreset,
  checkModelAvailable,
  connectionStatusAfterAuthFailure,
  type HttpProviderSettings,
  type OAuthFetch,
  oauthSecretEndpoint,
  resolveOAuthClient,
} from '@hal-ai/providers';
import type { CliStatus } from '@hal-ai/providers/cli';
import {
  type Connection,
  type ConnectionStatus,
  type ErrorInfo,
  HalError,
  type LanguageModel,
  type ModelInfo,
} from '@hal-ai/spec';
import type { Kysely } from 'kysely';
import type { AuditLog } from '../../domain/audit/types.js';
import type { Clock } from '../../domain/core/clock.js';
import { createIdGenerator } from '../../domain/core/core-support.js';
import type { HalConfig } from '../../platform/config.js';
import type { Database } from '../../platform/db/schema.js';
import type { Operator } from '../../platform/http/env.js';
import type { Logger } from '../../platform/logger.js';
import { createSharedRevision } from '../../platform/platform-revisions.js';
import { createConnectionChecks } from './connection-checks.js';
import type { ConnectionCliSettings } from './connection-cli.js';
import { createConnectionModels } from './connection-models.js';
import {
  type ConnectionAuditor,
  type ConnectionStatusWriter,
  createConnectionOAuth,
  type OAuthCallbackQuery,
} from './connection-oauth.js';
import {
  assertConnectionShape,
  type CreateConnectionInput,
  invalidField,
  type ReplaceSecretInput,
  type UpdateConnectionInput,
} from './connection-schemas.js';
import { type AppVault, createConnectionSecrets } from './connection-secrets.js';
import {
  type ConnectionRow,
  type ConnectionRowChanges,
  createConnectionStore,
  rowIdentity,
  rowLastError,
  rowModels,
  rowOAuth,
  rowReasoning,
  rowTools,
} from './connection-store.js';
import { createProviderBodyEncoder } from './provider-body-encoder.js';

// Callers that hold the vault for the connections name its type from here too.
export type { AppVault } from './connection-secrets.js';

/** A change of a connection, for listeners such as the rooms (tabs follow connections). */
export interface ConnectionChange {
  type: 'created' | 'updated' | 'deleted';
  connection: Connection;
}

/**
 * What the rest of HAL (the rooms) needs of the connections: public views, a ready model, and a
 * way to report a provider's authentication failure.
 */
export interface ConnectionService {
  /** Public views (SPEC §14 `Connection`), in connection order. */
  list(): Promise<Connection[]>;
  get(id: string): Promise<Connection | undefined>;
  /**
   * A model built from the connection and its vault secret; OAuth tokens are refreshed first when
   * they are about to expire. A disabled connection → `connection_inactive`; a failed refresh →
   * `reauth_required` (and the connection's status says so).
   */
  languageModel(id: string): Promise<LanguageModel>;
  /** `provider_auth` (or `cli_not_logged_in`) → `reauth_required` for OAuth/CLI, `error` for API keys. */
  reportProviderError(id: string, error: HalError): Promise<void>;
  /** Calls `listener` after every create, update and delete; returns the unsubscribe function. */
  onChange(listener: (event: ConnectionChange) => void): () => void;
  /**
   * The connections' shared revision: it moves with every row or secret write on any instance on the database, so
   * what a process derived from the connections (views, participants) is stale when it differs.
   */
  revision(): Promise<number>;
  /**
   * The context window of the connection's model as its provider's model list reports it (debates compact their
   * prompts by it); undefined when the list does not say, for a local CLI, or when the list cannot be read.
   */
  contextWindow(id: string): Promise<number | undefined>;
}

/** A provider as the connections screen offers it (HTTP presets plus the local CLIs). */
export type ConnectionProviderView = ConnectionProviderPreset;

/** The result of a check: the stored connection and the models the provider listed. */
export interface ConnectionCheckResult {
  connection: Connection;
  models: ModelInfo[];
}

/** The full service the `/ops/api/ai` routes drive (a superset of {@link ConnectionService}). */
export interface ConnectionManager extends ConnectionService {
  /** Creates a connection and runs the check at once. */
  create(input: CreateConnectionInput, operator: Operator): Promise<Connection>;
  /** Applies a change (a PATCH body, parsed). */
  update(id: string, input: UpdateConnectionInput, operator: Operator): Promise<Connection>;
  /** Deletes the connection and every secret it holds. */
  remove(id: string, operator: Operator): Promise<void>;
  /** Calls the provider's model list (CLI: `--version` and login status) and stores the result. */
  check(id: string, operator?: Operator): Promise<ConnectionCheckResult>;
  /** `{apiKey}` or `{clientSecret}` replaces that secret. */
  replaceSecret(id: string, input: ReplaceSecretInput, operator: Operator): Promise<Connection>;
  /** Starts an OAuth login: a fresh state and PKCE pair; returns the URL the popup opens. */
  startOAuth(id: string, operator: Operator, callbackUrl: string): Promise<{ authorizeUrl: string }>;
  /** Finishes an OAuth login from the callback's query; `oauth_state_invalid` when the state does not hold. */
  completeOAuth(query: OAuthCallbackQuery, operator: Operator): Promise<Connection>;
  /** Both local CLIs as found on this server. */
  listClis(): Promise<CliStatus[]>;
  /** Provider presets with setup guides. */
  providers(): readonly ConnectionProviderView[];
  /** Whether a connection holds a key or token now (routes decide about `requireRecent` with it). */
  holdsSecret(id: string): Promise<boolean>;
}

/** What the connections are built from: the database, the vault, and the host's clock, audit and log. */
export interface ConnectionServiceDeps {
  db: Kysely<Database>;
  vault: AppVault;
  clock: Clock;
  audit: AuditLog;
  logger: Logger;
  config: Pick<HalConfig, 'providerFirstByteTimeoutMs' | 'providerIdleTimeoutMs'> &
    Partial<Pick<HalConfig, 'providerBodyCache'>>;
  /** Randomness for ids. Default `crypto.randomBytes`. */
  random?: (bytes: number) => Buffer;
}

/** Options of {@link createConnectionService}. */
export interface ConnectionServiceOptions {
  /** The undici dispatcher provider calls go through (proxies, tests). */
  dispatcher?: HttpProviderSettings['dispatcher'];
  /** `fetch` for OAuth endpoints. Default the global `fetch`. */
  fetch?: OAuthFetch;
  /** How local CLIs are found and run. */
  cli?: ConnectionCliSettings;
  /** Provider first-byte timeout. Default `config.providerFirstByteTimeoutMs`. */
  firstByteTimeoutMs?: number;
  /** Provider idle timeout. Default `config.providerIdleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** Lifetime of an OAuth state. Default 10 minutes. */
  oauthStateTtlMs?: number;
}

/**
 * Creates the AI connections: a façade over their store (rows, no secret), secrets (the vault:
 * API keys, OAuth tokens, client secrets, PKCE verifiers under `connection:<id>:…`), OAuth, checks
 * and models. It owns what crosses them: the audit trail, change events and status transitions.
 *
 * @example
 * const connections = createConnectionService({ db, vault, clock, audit, logger, config });
 * const model = await connections.languageModel(connectionId);
 */
export function createConnectionService(
  deps: ConnectionServiceDeps,
  options: ConnectionServiceOptions = {},
): ConnectionManager {
  const { clock, logger } = deps;
  // Context windows as the last model list reported them, per connection: read from a check, or listed once when
  // a debate first asks; forgotten with the models on any change here, and not used past a change on another
  // instance (the shared revision they were read at).
  const contextWindows = new Map<string, { revision: number; window: Promise<number | undefined> }>();
  const forgetModels = () => {
    models.forget();
    contextWindows.clear();
  };
  const windowOf = (listed: readonly ModelInfo[], model: string | null) =>
    model ? listed.find((entry) => entry.id === model)?.contextWindow : undefined;
  // Every instance on the database keeps models and views of the connections: each write tells them all.
  const revision = createSharedRevision(deps.db, 'ai_connections');
  const written = async () => {
    forgetModels();
    await revision.bump();
  };
  const store = createConnectionStore({ db: deps.db, clock, onWrite: written });
  const secrets = createConnectionSecrets({ vault: deps.vault, onWrite: written });
  const newId = createIdGenerator(clock, deps.random ?? randomBytes);
  const listeners = new Set<(event: ConnectionChange) => void>();
  const nowIso = () => new Date(clock.now()).toISOString();

  const audited: ConnectionAuditor = async (operator, action, id, details) => {
    await deps.audit.append({
      actor: operator ? `operator:${operator.id}` : 'system',
      action,
      target: `connection:${id}`,
      // Details never carry a secret; the vault's redactor is a second line of defence.
      details: secrets.redact(details),
    });
  };

  async function toView(row: ConnectionRow): Promise<Connection> {
    return {
      id: row.id,
      name: row.name,
      provider: row.provider as Connection['provider'],
      auth: row.auth as Connection['auth'],
      baseUrl: row.base_url,
      model: row.model,
      models: rowModels(row),
      identity: rowIdentity(row),
      tools: rowTools(row),
      reasoning: rowReasoning(row),
      status: row.status as ConnectionStatus,
      lastCheckedAt: row.last_checked_at,
      lastError: rowLastError(row),
      secret: await secrets.view(row),
    };
  }

  function emit(type: ConnectionChange['type'], connection: Connection): void {
    forgetModels();
    for (const listener of listeners) {
      try {
        listener({ type, connection });
      } catch (error) {
        logger.warn({ err: error, connectionId: connection.id }, 'connection listener failed');
      }
    }
  }

  /** Emits the stored row's view and returns it. */
  async function emitUpdated(row: ConnectionRow): Promise<Connection> {
    const connection = await toView(row);
    emit('updated', connection);
    return connection;
  }

  const setStatus: ConnectionStatusWriter = async (row, status, lastError: ErrorInfo | null) => {
    const updated = await store.patch(row.id, {
      status,
      last_error: lastError === null ? null : JSON.stringify(lastError),
    });
    await emitUpdated(updated);
    return updated;
  };

  const oauth = createConnectionOAuth({
    store,
    secrets,
    clock,
    setStatus,
    audit: audited,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.oauthStateTtlMs ? { stateTtlMs: options.oauthStateTtlMs } : {}),
  });
  const models = createConnectionModels({
    store,
    secrets,
    oauth,
    revision: () => revision.read(),
    timeouts: {
      firstByteTimeoutMs: options.firstByteTimeoutMs ?? deps.config.providerFirstByteTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs ?? deps.config.providerIdleTimeoutMs,
    },
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(deps.config.providerBodyCache ? { encodeBody: createProviderBodyEncoder() } : {}),
    ...(options.cli ? { cli: options.cli } : {}),
  });
  const checks = createConnectionChecks({
    store,
    secrets,
    models,
    clock,
    logger,
    ...(options.cli ? { cli: options.cli } : {}),
  });

  async function runCheck(row: ConnectionRow, operator?: Operator): Promise<ConnectionCheckResult> {
    const outcome = await checks.run(row);
    const connection = await toView(outcome.row);
    await audited(operator, 'ai.connection.check', row.id, {
      status: connection.status,
      models: connection.models?.length ?? 0,
      error: connection.lastError?.code ?? null,
    });
    emit('updated', connection);
    if (outcome.row.provider !== 'local-cli') {
      contextWindows.set(row.id, {
        revision: await revision.read(),
        window: Promise.resolve(windowOf(outcome.models, outcome.row.model)),
      });
    }
    return { connection, models: outcome.models };
  }

  /** What an update changes in the row and the vault, worked out before anything is written. */
  async function planUpdate(row: ConnectionRow, input: UpdateConnectionInput) {
    const id = row.id;
    const values: ConnectionRowChanges = {};
    const changed: string[] = [];
    let clientSecret: string | undefined;
    let dropTokens = false;
    if (input.name !== undefined && input.name !== row.name) {
      await store.assertNameFree(input.name, id);
      values.name = input.name;
      changed.push('name');
    }
    if (input.identity !== undefined) {
      values.identity = JSON.stringify({ ...rowIdentity(row), ...input.identity });
      changed.push('identity');
    }
    if (input.tools !== undefined) {
      values.tools = JSON.stringify({ preset: input.tools.preset, enabled: input.tools.enabled ?? [] });
      changed.push('tools');
    }
    if (input.reasoning !== undefined && input.reasoning !== row.reasoning) {
      values.reasoning = input.reasoning;
      changed.push('reasoning');
    }
    if (input.apiKey !== undefined && row.auth !== 'api_key')
      throw invalidField('apiKey', 'only with auth "api_key"');
    if (input.oauth !== undefined && row.auth !== 'oauth')
      throw invalidField('oauth', 'only with auth "oauth"');
    const baseUrlChanged = input.baseUrl !== undefined && (input.baseUrl ?? null) !== row.base_url;
    if (baseUrlChanged) {
      if (row.provider === 'local-cli') throw invalidField('baseUrl', 'local CLIs have no base URL');
      if (row.provider === 'other' && !input.baseUrl)
        throw invalidField('baseUrl', 'required for "other" services');
      // A key must never follow a connection to a new host unless the operator re-enters it.
      if ((await secrets.holdsApiKey(id)) && input.apiKey === undefined) {
        throw invalidField(
          'apiKey',
          'changing the base URL of a connection that holds a key needs the key again',
        );
      }
      values.base_url = input.baseUrl ?? null;
      changed.push('baseUrl');
      // An OAuth token cannot be re-entered: it is dropped, and a new login binds a token to the new host.
      if (row.auth === 'oauth') dropTokens = true;
    }
    if (input.oauth !== undefined) {
      const { clientSecret: givenSecret, ...settings } = input.oauth;
      const next = { ...rowOAuth(row), ...settings };
      const before = oauthSecretEndpoint(resolveOAuthClient(row.provider, rowOAuth(row)));
      const after = oauthSecretEndpoint(resolveOAuthClient(row.provider, next));
      if (before !== after) {
        // The client secret would follow to a new token endpoint: the operator must give it again.
        if ((await secrets.holdsClientSecret(id)) && givenSecret === undefined) {
          throw invalidField(
            'oauth.clientSecret',
            'changing the token endpoint needs the client secret again',
          );
        }
        // Tokens belong to the old authorization server.
        dropTokens = true;
      }
      values.oauth = JSON.stringify(next);
      clientSecret = givenSecret;
      changed.push('oauth');
    }
    if (input.model !== undefined && input.model !== row.model) {
      const listed = rowModels(row);
      if (listed === null) {
        throw new HalError('model_unavailable', 'Check the connection first: its model list is unknown', {
          details: { model: input.model, available: [] },
        });
      }
      checkModelAvailable(listed, input.model);
      values.model = input.model;
      changed.push('model');
    }
    if (input.status !== undefined && input.status !== row.status) {
      values.status = input.status;
      if (input.status === 'active') values.last_error = null;
      changed.push('status');
    }
    return { values, changed, clientSecret, dropTokens, baseUrlChanged };
  }

  const manager: ConnectionManager = {
    async list() {
      return Promise.all((await store.list()).map(toView));
    },

    async get(id) {
      const row = await store.find(id);
      return row ? toView(row) : undefined;
    },

    languageModel: (id) => models.languageModel(id),

    async contextWindow(id) {
      const current = await revision.read();
      const known = contextWindows.get(id);
      if (known?.revision === current) return known.window.catch(() => undefined);
      const entry = {
        revision: current,
        window: (async () => {
          const row = await store.find(id);
          if (!row?.model || row.provider === 'local-cli' || row.status === 'disabled') return undefined;
          return windowOf(await (await models.provider(row)).listModels(), row.model);
        })(),
      };
      contextWindows.set(id, entry);
      // A failed listing is not kept: the next round asks again.
      entry.window.catch(() => {
        if (contextWindows.get(id) === entry) contextWindows.delete(id);
      });
      return entry.window.catch(() => undefined);
    },

    async reportProviderError(id, error) {
      const row = await store.find(id);
      if (!row) return;
      const next = connectionStatusAfterAuthFailure(row.auth as ConnectionAuthMethod, error.code);
      if (next === undefined) return;
      await setStatus(row, row.status === 'disabled' ? 'disabled' : next, {
        code: error.code,
        message: secrets.redact(error.message),
      });
      await audited(undefined, 'ai.connection.check', id, {
        status: next,
        error: error.code,
        source: 'turn',
      });
    },

    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    revision: () => revision.read(),

    async create(input, operator) {
      assertConnectionShape(input);
      await store.assertNameFree(input.name);
      const id = newId('conn');
      const { clientSecret, ...oauthSettings } = input.oauth ?? {};
      const row: ConnectionRow = {
        id,
        position: await store.nextPosition(),
        name: input.name,
        provider: input.provider,
        auth: input.auth,
        base_url: input.baseUrl ?? null,
        model: input.model ?? null,
        models: null,
        identity: JSON.stringify(input.identity),
        tools: JSON.stringify({ preset: input.tools.preset, enabled: input.tools.enabled ?? [] }),
        reasoning: input.reasoning,
        status: input.auth === 'oauth' ? 'reauth_required' : 'error',
        last_checked_at: null,
        last_error: null,
        oauth: input.auth === 'oauth' ? JSON.stringify(oauthSettings) : null,
        cli_tool: input.cli?.tool ?? null,
        cli_check: null,
        created_at: nowIso(),
        updated_at: nowIso(),
      };
      // A custom OAuth client that lacks an endpoint or its id is refused before anything is stored.
      if (input.auth === 'oauth') oauth.client(row);
      await store.insert(row);
      if (input.apiKey !== undefined) await secrets.setApiKey(id, input.apiKey);
      if (clientSecret !== undefined) await secrets.setClientSecret(id, clientSecret);
      await audited(operator, 'ai.connection.create', id, {
        name: input.name,
        provider: input.provider,
        auth: input.auth,
        baseUrl: input.baseUrl ?? null,
        model: input.model ?? null,
        hasKey: input.apiKey !== undefined,
        hasClientSecret: clientSecret !== undefined,
      });
      emit('created', await toView(row));
      if (input.auth === 'oauth' && !(await secrets.tokens(id))) {
        // Nothing to check before the login; the status already says what is missing.
        const waiting = await setStatus(await store.require(id), 'reauth_required', {
          code: 'reauth_required',
          message: 'Log in with OAuth to finish this connection',
        });
        return toView(waiting);
      }
      return (await runCheck(await store.require(id), operator)).connection;
    },

    async update(id, input, operator) {
      const row = await store.require(id);
      const plan = await planUpdate(row, input);
      const { values, changed } = plan;
      let updated = Object.keys(values).length > 0 ? await store.patch(id, values) : row;
      if (input.apiKey !== undefined) {
        await secrets.setApiKey(id, input.apiKey);
        changed.push('apiKey');
      }
      if (plan.clientSecret !== undefined) {
        await secrets.setClientSecret(id, plan.clientSecret);
        changed.push('clientSecret');
      }
      if (plan.dropTokens && (await secrets.dropTokens(id))) {
        oauth.forget(id);
        updated = await store.patch(id, {
          status: updated.status === 'disabled' ? 'disabled' : 'reauth_required',
          last_error: JSON.stringify({
            code: 'reauth_required',
            message: 'The OAuth endpoints changed; log in again',
          }),
        });
      }
      await audited(operator, 'ai.connection.update', id, {
        changed,
        ...(values.base_url !== undefined ? { baseUrl: values.base_url } : {}),
        ...(values.model !== undefined ? { model: values.model } : {}),
        ...(values.status !== undefined ? { status: values.status } : {}),
      });
      if (plan.baseUrlChanged || input.apiKey !== undefined)
        return (await runCheck(updated, operator)).connection;
      return emitUpdated(await store.require(id));
    },

    async remove(id, operator) {
      const row = await store.require(id);
      const connection = await toView(row);
      await secrets.removeAll(id);
      await store.remove(id);
      oauth.forget(id);
      await audited(operator, 'ai.connection.delete', id, { name: row.name, provider: row.provider });
      emit('deleted', connection);
    },

    async check(id, operator) {
      return runCheck(await store.require(id), operator);
    },

    async replaceSecret(id, input, operator) {
      const row = await store.require(id);
      if (input.apiKey !== undefined) {
        if (row.auth !== 'api_key') throw invalidField('apiKey', 'this connection does not use an API key');
        await secrets.setApiKey(id, input.apiKey);
      } else if (input.clientSecret !== undefined) {
        if (row.auth !== 'oauth') throw invalidField('clientSecret', 'this connection does not use OAuth');
        await secrets.setClientSecret(id, input.clientSecret);
      }
      await audited(operator, 'ai.connection.secret', id, {
        secret: input.apiKey !== undefined ? 'api_key' : 'oauth_client_secret',
      });
      if (input.apiKey !== undefined) return (await runCheck(await store.require(id), operator)).connection;
      return emitUpdated(await store.require(id));
    },

    async startOAuth(id, operator, callbackUrl) {
      const row = await store.require(id);
      if (row.auth !== 'oauth') throw invalidField('auth', 'this connection does not use OAuth');
      return oauth.start(row, operator, callbackUrl);
    },

    async completeOAuth(query, operator) {
      const row = await oauth.complete(query, operator);
      return (await runCheck(row, operator)).connection;
    },

    listClis: () => checks.listClis(),

    providers: () => CONNECTION_PROVIDER_PRESETS,

    holdsSecret: (id) => secrets.holdsCredential(id),
  };
  return manager;
}
