import { createHash, randomBytes } from 'node:crypto';
import {
  buildAuthorizationUrl,
  buildOpenRouterAuthorizationUrl,
  checkModelAvailable,
  createOAuthState,
  createPkcePair,
  createProvider,
  createTokenRefresher,
  exchangeCode,
  exchangeOpenRouterCode,
  type HttpProviderId,
  type HttpProviderSettings,
  OAUTH_PRESETS,
  type OAuthFetch,
  type OAuthTokens,
  PROVIDER_PRESETS,
  type ProviderPreset,
  refreshTokens,
  type TokenRefresher,
} from '@hal-ai/providers';
import {
  CLI_DEFAULT_MODEL,
  CLI_LOGIN_HINT,
  type CliMcpServer,
  type CliSpawn,
  type CliStatus,
  type CliTool,
  createCliProvider,
  getCliStatus,
} from '@hal-ai/providers/cli';
import {
  type Connection,
  type ConnectionStatus,
  type ErrorInfo,
  HalError,
  type HalErrorCode,
  type LanguageModel,
  type ModelInfo,
  type ModelProvider,
  type SecretView,
} from '@hal-ai/spec';
import type { ToolSelection } from '@hal-ai/tools';
import type { Vault } from '@hal-ai/vault';
import type { Selectable } from 'kysely';
import { createIdGenerator, parseInput } from '../../core/core-support.js';
import type { AiConnectionsTable } from '../../db/tables/ai-connections.js';
import type { AppDeps } from '../../deps.js';
import type { Operator } from '../../http/env.js';
import {
  type CreateConnectionInput,
  createConnectionSchema,
  type OAuthSettingsInput,
  replaceSecretSchema,
  type UpdateConnectionInput,
  updateConnectionSchema,
} from './connection-schemas.js';

/** A connection's model as {@link ConnectionService.languageModel} caches it. */
interface CachedModel {
  model: LanguageModel;
  /** The OAuth tokens it was built with (OAuth connections only). */
  tokens?: OAuthTokens;
}

/** HAL's vault, as the connections use it (secrets only ever go here). */
export type AppVault = Vault;

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
}

/** A provider as the connections screen offers it (HTTP presets plus the local CLIs). */
export interface ConnectionProviderView {
  id: string;
  label: string;
  defaultBaseUrl: string | null;
  baseUrlRequired: boolean;
  authMethods: ReadonlyArray<'api_key' | 'oauth' | 'cli'>;
  guide: { apiKey?: string; oauth?: string; cli?: string };
  /** The OAuth preset used when the operator gives none. */
  oauthPreset: 'openrouter' | 'google' | 'custom' | null;
}

/** The result of a check: the stored connection and the models the provider listed. */
export interface ConnectionCheckResult {
  connection: Connection;
  models: ModelInfo[];
}

/** The full service the `/ops/api/ai` routes drive (a superset of {@link ConnectionService}). */
export interface ConnectionManager extends ConnectionService {
  /** Creates a connection from a request body and runs the check at once. */
  create(body: unknown, operator: Operator): Promise<Connection>;
  /** Applies a PATCH body. */
  update(id: string, body: unknown, operator: Operator): Promise<Connection>;
  /** Deletes the connection and every secret it holds. */
  remove(id: string, operator: Operator): Promise<void>;
  /** Calls the provider's model list (CLI: `--version` and login status) and stores the result. */
  check(id: string, operator?: Operator): Promise<ConnectionCheckResult>;
  /** `{apiKey}` or `{clientSecret}` replaces that secret. */
  replaceSecret(id: string, body: unknown, operator: Operator): Promise<Connection>;
  /** Starts an OAuth login: a fresh state and PKCE pair; returns the URL the popup opens. */
  startOAuth(id: string, operator: Operator, callbackUrl: string): Promise<{ authorizeUrl: string }>;
  /** Finishes an OAuth login from the callback's query; `oauth_state_invalid` when the state does not hold. */
  completeOAuth(
    query: { code?: string; state?: string; error?: string },
    operator: Operator,
  ): Promise<Connection>;
  /** Both local CLIs as found on this server. */
  listClis(): Promise<CliStatus[]>;
  /** Provider presets with setup guides. */
  providers(): ConnectionProviderView[];
  /** Whether a connection holds a key or token now (routes decide about `requireRecent` with it). */
  holdsSecret(id: string): Promise<boolean>;
}

/** Options of {@link createConnectionService}. */
export interface ConnectionServiceOptions {
  /** The undici dispatcher provider calls go through (proxies, tests). */
  dispatcher?: HttpProviderSettings['dispatcher'];
  /** `fetch` for OAuth endpoints. Default the global `fetch`. */
  fetch?: OAuthFetch;
  /** How local CLIs are found and run. */
  cli?: {
    /** `CLAUDE_BIN`, `CODEX_BIN`, `HAL_CLI_DIRS`, `PATH`, `HOME`. Default `process.env`. */
    env?: Record<string, string | undefined>;
    homedir?: string;
    spawn?: CliSpawn;
    /** Per status command. Default 15 000 ms. */
    statusTimeoutMs?: number;
    /**
     * HAL's MCP server, attached to every CLI run (read tools; approval requests for the rest).
     * A function receives the connection's tool selection, so its preset decides which HAL tools
     * the CLI may call (`none` → no server).
     */
    mcp?: CliMcpServer | ((selection: ToolSelection) => CliMcpServer | undefined);
  };
  /** Provider first-byte timeout. Default `config.providerFirstByteTimeoutMs`. */
  firstByteTimeoutMs?: number;
  /** Provider idle timeout. Default `config.providerIdleTimeoutMs`. */
  idleTimeoutMs?: number;
  /** Lifetime of an OAuth state. Default 10 minutes. */
  oauthStateTtlMs?: number;
}

type Row = Selectable<AiConnectionsTable>;

interface StoredOAuth extends OAuthSettingsInput {}

type ResolvedOAuth =
  | { kind: 'openrouter'; authorizeUrl: string; keysUrl: string }
  | {
      kind: 'authorization-code';
      authorizeUrl: string;
      tokenUrl: string;
      clientId: string;
      scopes: readonly string[];
      extraParams?: Readonly<Record<string, string>>;
      clientAuthMethod: 'client_secret_post' | 'client_secret_basic';
    };

const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** Vault ids of a connection's secrets. */
export const connectionSecretIds = {
  apiKey: (id: string) => `connection:${id}:api_key`,
  oauthTokens: (id: string) => `connection:${id}:oauth`,
  clientSecret: (id: string) => `connection:${id}:oauth_client_secret`,
  /** Keyed by the state's hash, so the vault's (plain) ids never reveal a live state. */
  verifier: (id: string, stateHash: string) => `connection:${id}:oauth_verifier:${stateHash}`,
  prefix: (id: string) => `connection:${id}:`,
};

const CLI_GUIDE: Record<CliTool, string> = {
  claude: `Install Claude Code on the server and log in as the account HAL runs as. ${CLI_LOGIN_HINT.claude}`,
  codex: `Install Codex on the server and log in as the account HAL runs as. ${CLI_LOGIN_HINT.codex}`,
};

function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function errorInfo(error: unknown, redact: <T>(value: T) => T = (value) => value): ErrorInfo {
  if (HalError.isInstance(error)) return { code: error.code, message: redact(error.message) };
  return { code: 'provider_unavailable', message: 'The provider could not be reached' };
}

function defaultOAuthPreset(provider: string): 'openrouter' | 'google' | 'custom' {
  if (provider === 'openrouter') return 'openrouter';
  if (provider === 'gemini') return 'google';
  return 'custom';
}

function invalid(path: string, message: string): HalError {
  return new HalError('validation_failed', `${path}: ${message}`, {
    details: { issues: [{ path, message }] },
  });
}

/**
 * Creates the AI connections service over `deps.db` and `deps.vault`. Rows hold no secret: API keys,
 * OAuth tokens, client secrets and PKCE verifiers are sealed in the vault under
 * `connection:<id>:…`, and public views carry only hints.
 *
 * @example
 * const connections = createConnectionService({ ...deps, vault });
 * const model = await connections.languageModel(connectionId);
 */
export function createConnectionService(
  deps: AppDeps & { vault: AppVault },
  options: ConnectionServiceOptions = {},
): ConnectionManager {
  const { db, clock, audit, logger } = deps;
  // Each turn asks for its connection's model: building it (row read, decrypting the key, a new
  // provider) per turn was measurable CPU on the request path, so models are cached per connection.
  // Any change of a connection (row write, event) or of any secret bumps `generation` and drops
  // them all; a build that overlapped a change is used once but not cached.
  const models = new Map<string, CachedModel>();
  let generation = 0;
  const forgetModels = () => {
    generation++;
    models.clear();
  };
  // The vault as this service uses it: every secret write or delete (key replaced, OAuth tokens
  // stored or refreshed, connection deleted) drops the cached models. Reads pass through.
  const vault: AppVault = Object.create(deps.vault, {
    set: {
      value: async (id: string, secret: string) => {
        try {
          await deps.vault.set(id, secret);
        } finally {
          forgetModels();
        }
      },
    },
    delete: {
      value: async (id: string) => {
        try {
          await deps.vault.delete(id);
        } finally {
          forgetModels();
        }
      },
    },
  });
  const random = deps.random ?? randomBytes;
  const newId = createIdGenerator(clock, random);
  const listeners = new Set<(event: ConnectionChange) => void>();
  const refreshers = new Map<string, TokenRefresher>();
  const oauthFetch = options.fetch;
  const timeouts = {
    firstByteTimeoutMs: options.firstByteTimeoutMs ?? deps.config.providerFirstByteTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs ?? deps.config.providerIdleTimeoutMs,
  };
  const stateTtlMs = options.oauthStateTtlMs ?? OAUTH_STATE_TTL_MS;
  const cliEnv = () => options.cli?.env ?? process.env;
  const nowIso = () => new Date(clock.now()).toISOString();

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

  async function findRow(id: string): Promise<Row | undefined> {
    return db.selectFrom('ai_connections').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async function requireRow(id: string): Promise<Row> {
    const row = await findRow(id);
    if (!row) throw new HalError('not_found', `No connection with id ${id}`, { details: { id } });
    return row;
  }

  async function readTokens(id: string): Promise<OAuthTokens | undefined> {
    const text = await vault.get(connectionSecretIds.oauthTokens(id));
    return text === undefined ? undefined : parseJson<OAuthTokens | undefined>(text, undefined);
  }

  async function secretView(row: Row): Promise<SecretView> {
    if (row.auth === 'cli') return { cli: true, tool: (row.cli_tool ?? 'claude') as CliTool };
    if (row.auth === 'oauth') {
      const tokens = await readTokens(row.id);
      return {
        hasToken: Boolean(tokens?.accessToken),
        expiresAt: tokens?.expiresAt ?? null,
        hasRefresh: Boolean(tokens?.refreshToken),
      };
    }
    const hint = await vault.hint(connectionSecretIds.apiKey(row.id));
    return { hasKey: hint !== undefined, hint: hint ?? null };
  }

  async function toView(row: Row): Promise<Connection> {
    const identity = parseJson(row.identity, { role: '', traits: '', instructions: '' });
    const tools = parseJson(row.tools, { preset: 'all', enabled: [] as string[] });
    return {
      id: row.id,
      name: row.name,
      provider: row.provider as Connection['provider'],
      auth: row.auth as Connection['auth'],
      baseUrl: row.base_url,
      model: row.model,
      models: parseJson<string[] | null>(row.models, null),
      identity: {
        role: identity.role ?? '',
        traits: identity.traits ?? '',
        instructions: identity.instructions ?? '',
      },
      tools: { preset: tools.preset as Connection['tools']['preset'], enabled: tools.enabled ?? [] },
      status: row.status as ConnectionStatus,
      lastCheckedAt: row.last_checked_at,
      lastError: parseJson<ErrorInfo | null>(row.last_error, null),
      secret: await secretView(row),
    };
  }

  async function patchRow(id: string, values: Partial<Omit<Row, 'id'>>): Promise<Row> {
    await db
      .updateTable('ai_connections')
      .set({ ...values, updated_at: nowIso() })
      .where('id', '=', id)
      .execute();
    forgetModels();
    return requireRow(id);
  }

  async function setStatus(row: Row, status: ConnectionStatus, lastError: ErrorInfo | null): Promise<Row> {
    const updated = await patchRow(row.id, {
      status,
      last_error: lastError === null ? null : JSON.stringify(lastError),
    });
    emit('updated', await toView(updated));
    return updated;
  }

  async function assertNameFree(name: string, exceptId?: string): Promise<void> {
    const rows = await db.selectFrom('ai_connections').select(['id', 'name']).execute();
    const clash = rows.find((row) => row.id !== exceptId && row.name.toLowerCase() === name.toLowerCase());
    if (clash) {
      throw new HalError('conflict', `A connection named "${name}" already exists`, {
        details: { field: 'name' },
      });
    }
  }

  function resolveOAuth(row: Row): ResolvedOAuth {
    const stored = parseJson<StoredOAuth>(row.oauth, {});
    const preset = stored.preset ?? defaultOAuthPreset(row.provider);
    if (preset === 'openrouter') {
      return {
        kind: 'openrouter',
        authorizeUrl: stored.authorizeUrl ?? OAUTH_PRESETS.openrouter.authorizeUrl,
        keysUrl: stored.keysUrl ?? OAUTH_PRESETS.openrouter.keysUrl,
      };
    }
    const base = preset === 'google' ? OAUTH_PRESETS.google : undefined;
    const authorizeUrl = stored.authorizeUrl ?? base?.authorizeUrl;
    const tokenUrl = stored.tokenUrl ?? base?.tokenUrl;
    if (!authorizeUrl) throw invalid('oauth.authorizeUrl', 'required for this OAuth client');
    if (!tokenUrl) throw invalid('oauth.tokenUrl', 'required for this OAuth client');
    if (!stored.clientId) throw invalid('oauth.clientId', 'required for this OAuth client');
    return {
      kind: 'authorization-code',
      authorizeUrl,
      tokenUrl,
      clientId: stored.clientId,
      scopes: stored.scopes ?? base?.scopes ?? [],
      ...(base?.extraParams ? { extraParams: base.extraParams } : {}),
      clientAuthMethod: stored.clientAuthMethod ?? base?.clientAuthMethod ?? 'client_secret_post',
    };
  }

  function refresherFor(row: Row): TokenRefresher {
    let refresher = refreshers.get(row.id);
    if (!refresher) {
      refresher = createTokenRefresher({
        clock,
        refresh: async (refreshToken) => {
          // Endpoint settings are read at refresh time, so an edited client takes effect at once.
          const current = await requireRow(row.id);
          const oauth = resolveOAuth(current);
          if (oauth.kind !== 'authorization-code') {
            throw new HalError('reauth_required', 'This login cannot be refreshed; log in again');
          }
          const clientSecret = await vault.get(connectionSecretIds.clientSecret(row.id));
          return refreshTokens({
            tokenUrl: oauth.tokenUrl,
            clientId: oauth.clientId,
            ...(clientSecret ? { clientSecret } : {}),
            clientAuthMethod: oauth.clientAuthMethod,
            refreshToken,
            clock,
            allowInsecureRequests: true,
            ...(oauthFetch ? { fetch: oauthFetch } : {}),
          });
        },
      });
      refreshers.set(row.id, refresher);
    }
    return refresher;
  }

  /** The access token of an OAuth connection, refreshed (single flight) when it is about to expire. */
  async function freshAccessToken(row: Row): Promise<OAuthTokens> {
    const tokens = await readTokens(row.id);
    if (!tokens?.accessToken) {
      throw new HalError('reauth_required', `Connection ${row.name} is not logged in; start the OAuth login`);
    }
    const refresher = refresherFor(row);
    if (!refresher.isExpiring(tokens)) return tokens;
    try {
      const fresh = await refresher.refresh(tokens);
      // Concurrent callers share one refresh; each writes the same tokens, which is harmless.
      await vault.set(connectionSecretIds.oauthTokens(row.id), JSON.stringify(fresh));
      return fresh;
    } catch (error) {
      const failure = HalError.isInstance(error)
        ? error
        : new HalError('reauth_required', 'The token refresh failed', { cause: error });
      if (failure.code === 'reauth_required' || failure.code === 'provider_auth') {
        await setStatus(await requireRow(row.id), 'reauth_required', {
          code: 'reauth_required',
          message: failure.message,
        });
        throw new HalError('reauth_required', failure.message, { cause: error });
      }
      throw failure;
    }
  }

  /** The MCP attachment of a local CLI run, by the connection's tool selection. */
  function cliMcp(row: Row): { mcp?: CliMcpServer } {
    const mcp = options.cli?.mcp;
    if (!mcp) return {};
    if (typeof mcp !== 'function') return { mcp };
    const tools = parseJson(row.tools, { preset: 'all', enabled: [] as string[] });
    const attached = mcp({ preset: tools.preset as ToolSelection['preset'], enabled: tools.enabled ?? [] });
    return attached ? { mcp: attached } : {};
  }

  /** Builds the connection's provider; `used.tokens` receives the OAuth tokens it was built with. */
  async function buildProvider(row: Row, used: { tokens?: OAuthTokens } = {}): Promise<ModelProvider> {
    if (row.provider === 'local-cli') {
      const tool = (row.cli_tool ?? 'claude') as CliTool;
      return createCliProvider({
        tool,
        ...(row.model ? { model: row.model } : {}),
        env: cliEnv(),
        ...(options.cli?.homedir ? { homedir: options.cli.homedir } : {}),
        ...(options.cli?.spawn ? { spawn: options.cli.spawn } : {}),
        ...cliMcp(row),
      });
    }
    let credentials: { apiKey?: string; authToken?: string } = {};
    if (row.auth === 'oauth') {
      const tokens = await freshAccessToken(row);
      used.tokens = tokens;
      const token = tokens.accessToken;
      // Anthropic and Gemini take OAuth tokens as Bearer beside their key headers; OpenAI-compatible
      // services take every credential as Bearer already.
      credentials =
        row.provider === 'anthropic' || row.provider === 'gemini' ? { authToken: token } : { apiKey: token };
    } else {
      const apiKey = await vault.get(connectionSecretIds.apiKey(row.id));
      if (apiKey !== undefined) credentials = { apiKey };
    }
    return createProvider({
      provider: row.provider as HttpProviderId,
      ...credentials,
      ...(row.base_url ? { baseUrl: row.base_url } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      ...timeouts,
    } as Parameters<typeof createProvider>[0]);
  }

  async function audited(
    operator: Operator | undefined,
    action: string,
    id: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await audit.append({
      actor: operator ? `operator:${operator.id}` : 'system',
      action,
      target: `connection:${id}`,
      // Details never carry a secret; the vault's redactor is a second line of defence.
      details: vault.redact(details),
    });
  }

  async function checkCli(row: Row): Promise<{ row: Row; models: ModelInfo[] }> {
    const tool = (row.cli_tool ?? 'claude') as CliTool;
    const status = await getCliStatus(tool, {
      env: cliEnv(),
      ...(options.cli?.homedir ? { homedir: options.cli.homedir } : {}),
      ...(options.cli?.spawn ? { spawn: options.cli.spawn } : {}),
      ...(options.cli?.statusTimeoutMs ? { timeoutMs: options.cli.statusTimeoutMs } : {}),
    });
    const checkedAt = nowIso();
    let nextStatus: ConnectionStatus;
    let lastError: ErrorInfo | null = null;
    let models: ModelInfo[] = [];
    if (!status.found) {
      nextStatus = 'error';
      lastError = { code: 'cli_not_found', message: status.error ?? `${tool} was not found on this server` };
    } else if (status.loggedIn === false) {
      nextStatus = 'reauth_required';
      lastError = { code: 'cli_not_logged_in', message: status.loginHint ?? CLI_LOGIN_HINT[tool] };
    } else if (status.loggedIn === null || status.version === null) {
      nextStatus = 'error';
      lastError = {
        code: 'provider_unavailable',
        message: status.error ?? `${tool} did not report its version or login state`,
      };
    } else {
      nextStatus = 'active';
      const provider = createCliProvider({
        tool,
        model: row.model ?? status.defaultModel ?? CLI_DEFAULT_MODEL[tool],
      });
      models = await provider.listModels();
    }
    const updated = await patchRow(row.id, {
      status: row.status === 'disabled' ? 'disabled' : nextStatus,
      last_error: lastError ? JSON.stringify(lastError) : null,
      last_checked_at: checkedAt,
      ...(models.length > 0 ? { models: JSON.stringify(models.map((model) => model.id)) } : {}),
      ...(row.model === null && status.defaultModel ? { model: status.defaultModel } : {}),
    });
    return { row: updated, models };
  }

  async function checkHttp(row: Row): Promise<{ row: Row; models: ModelInfo[] }> {
    let models: ModelInfo[] = [];
    let nextStatus: ConnectionStatus = 'active';
    let lastError: ErrorInfo | null = null;
    try {
      const provider = await buildProvider(row);
      models = await provider.listModels();
      if (row.model) {
        try {
          checkModelAvailable(models, row.model);
        } catch (error) {
          nextStatus = 'error';
          lastError = errorInfo(error, vault.redact);
        }
      }
    } catch (error) {
      lastError = errorInfo(error, vault.redact);
      const authFailure = lastError.code === 'provider_auth' || lastError.code === 'reauth_required';
      nextStatus = authFailure && row.auth === 'oauth' ? 'reauth_required' : 'error';
      logger.info({ connectionId: row.id, code: lastError.code }, 'connection check failed');
    }
    const current = await requireRow(row.id);
    const updated = await patchRow(row.id, {
      status: current.status === 'disabled' ? 'disabled' : nextStatus,
      last_error: lastError ? JSON.stringify(lastError) : null,
      last_checked_at: nowIso(),
      ...(models.length > 0 || lastError === null
        ? { models: JSON.stringify(models.map((model) => model.id)) }
        : {}),
    });
    return { row: updated, models };
  }

  async function runCheck(row: Row, operator?: Operator): Promise<ConnectionCheckResult> {
    const result = row.provider === 'local-cli' ? await checkCli(row) : await checkHttp(row);
    const connection = await toView(result.row);
    await audited(operator, 'ai.connection.check', row.id, {
      status: connection.status,
      models: connection.models?.length ?? 0,
      error: connection.lastError?.code ?? null,
    });
    emit('updated', connection);
    return { connection, models: result.models };
  }

  function validateShape(input: CreateConnectionInput): void {
    const isCli = input.provider === 'local-cli';
    if (isCli !== (input.auth === 'cli')) {
      throw invalid(
        'auth',
        isCli ? 'local-cli connections use auth "cli"' : 'auth "cli" is only for local-cli',
      );
    }
    if (isCli && !input.cli) throw invalid('cli.tool', 'choose claude or codex');
    if (!isCli && input.cli) throw invalid('cli', 'only for local-cli connections');
    if (input.provider === 'other' && !input.baseUrl)
      throw invalid('baseUrl', 'required for "other" services');
    if (isCli && input.baseUrl) throw invalid('baseUrl', 'local CLIs have no base URL');
    if (input.apiKey !== undefined && input.auth !== 'api_key')
      throw invalid('apiKey', 'only with auth "api_key"');
    if (input.oauth !== undefined && input.auth !== 'oauth') throw invalid('oauth', 'only with auth "oauth"');
  }

  const manager: ConnectionManager = {
    async list() {
      const rows = await db
        .selectFrom('ai_connections')
        .selectAll()
        .orderBy('position')
        .orderBy('id')
        .execute();
      return Promise.all(rows.map(toView));
    },

    async get(id) {
      const row = await findRow(id);
      return row ? toView(row) : undefined;
    },

    async languageModel(id) {
      const cached = models.get(id);
      // An OAuth model is reused only while its access token is not about to expire; then it is
      // rebuilt, which refreshes the token.
      if (cached && !(cached.tokens && refreshers.get(id)?.isExpiring(cached.tokens) !== false)) {
        return cached.model;
      }
      const started = generation;
      const row = await requireRow(id);
      if (row.status === 'disabled') {
        throw new HalError('connection_inactive', `Connection ${row.name} is disabled`, {
          details: { connectionId: id },
        });
      }
      const used: { tokens?: OAuthTokens } = {};
      const provider = await buildProvider(row, used);
      const modelId =
        row.model ??
        (row.provider === 'local-cli' ? CLI_DEFAULT_MODEL[(row.cli_tool ?? 'claude') as CliTool] : undefined);
      if (!modelId) {
        throw new HalError('model_unavailable', `Connection ${row.name} has no model chosen`, {
          details: { connectionId: id },
        });
      }
      const model = provider.languageModel(modelId);
      if (generation === started) models.set(id, used.tokens ? { model, tokens: used.tokens } : { model });
      return model;
    },

    async reportProviderError(id, error) {
      const row = await findRow(id);
      if (!row) return;
      const code: HalErrorCode = error.code;
      if (code !== 'provider_auth' && code !== 'cli_not_logged_in' && code !== 'reauth_required') return;
      const next: ConnectionStatus = row.auth === 'api_key' ? 'error' : 'reauth_required';
      await setStatus(row, row.status === 'disabled' ? 'disabled' : next, {
        code,
        message: vault.redact(error.message),
      });
      await audited(undefined, 'ai.connection.check', id, { status: next, error: code, source: 'turn' });
    },

    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    async create(body, operator) {
      const input = parseInput(createConnectionSchema, body);
      validateShape(input);
      await assertNameFree(input.name);
      const id = newId('conn');
      const last = await db
        .selectFrom('ai_connections')
        .select((eb) => eb.fn.max('position').as('position'))
        .executeTakeFirst();
      const { clientSecret, ...oauthSettings } = input.oauth ?? {};
      const row: Row = {
        id,
        position: Number(last?.position ?? 0) + 1,
        name: input.name,
        provider: input.provider,
        auth: input.auth,
        base_url: input.baseUrl ?? null,
        model: input.model ?? null,
        models: null,
        identity: JSON.stringify(input.identity),
        tools: JSON.stringify({ preset: input.tools.preset, enabled: input.tools.enabled ?? [] }),
        status: input.auth === 'oauth' ? 'reauth_required' : 'error',
        last_checked_at: null,
        last_error: null,
        oauth: input.auth === 'oauth' ? JSON.stringify(oauthSettings) : null,
        cli_tool: input.cli?.tool ?? null,
        created_at: nowIso(),
        updated_at: nowIso(),
      };
      if (input.auth === 'oauth') resolveOAuth(row);
      await db.insertInto('ai_connections').values(row).execute();
      if (input.apiKey !== undefined) await vault.set(connectionSecretIds.apiKey(id), input.apiKey);
      if (clientSecret !== undefined) await vault.set(connectionSecretIds.clientSecret(id), clientSecret);
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
      if (input.auth === 'oauth' && !(await readTokens(id))) {
        // Nothing to check before the login; the status already says what is missing.
        const waiting = await setStatus(await requireRow(id), 'reauth_required', {
          code: 'reauth_required',
          message: 'Log in with OAuth to finish this connection',
        });
        return toView(waiting);
      }
      return (await runCheck(await requireRow(id), operator)).connection;
    },

    async update(id, body, operator) {
      const input: UpdateConnectionInput = parseInput(updateConnectionSchema, body);
      const row = await requireRow(id);
      let pendingClientSecret: string | undefined;
      let dropTokens = false;
      const values: Partial<Omit<Row, 'id'>> = {};
      const changed: string[] = [];
      if (input.name !== undefined && input.name !== row.name) {
        await assertNameFree(input.name, id);
        values.name = input.name;
        changed.push('name');
      }
      if (input.identity !== undefined) {
        const identity = parseJson(row.identity, { role: '', traits: '', instructions: '' });
        values.identity = JSON.stringify({ ...identity, ...input.identity });
        changed.push('identity');
      }
      if (input.tools !== undefined) {
        values.tools = JSON.stringify({ preset: input.tools.preset, enabled: input.tools.enabled ?? [] });
        changed.push('tools');
      }
      if (input.apiKey !== undefined && row.auth !== 'api_key')
        throw invalid('apiKey', 'only with auth "api_key"');
      if (input.oauth !== undefined && row.auth !== 'oauth') throw invalid('oauth', 'only with auth "oauth"');
      const baseUrlChanged = input.baseUrl !== undefined && (input.baseUrl ?? null) !== row.base_url;
      if (baseUrlChanged) {
        if (row.provider === 'local-cli') throw invalid('baseUrl', 'local CLIs have no base URL');
        if (row.provider === 'other' && !input.baseUrl)
          throw invalid('baseUrl', 'required for "other" services');
        // A key must never follow a connection to a new host unless the operator re-enters it.
        const holdsKey = await vault.has(connectionSecretIds.apiKey(id));
        if (holdsKey && input.apiKey === undefined) {
          throw invalid(
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
        const stored = parseJson<StoredOAuth>(row.oauth, {});
        const { clientSecret, ...settings } = input.oauth;
        const next = { ...stored, ...settings };
        const before = resolveOAuth(row);
        const after = resolveOAuth({ ...row, oauth: JSON.stringify(next) });
        const tokenHost = (oauth: typeof before) =>
          oauth.kind === 'openrouter' ? oauth.keysUrl : oauth.tokenUrl;
        if (tokenHost(before) !== tokenHost(after)) {
          // The client secret would follow to a new token endpoint: the operator must give it again.
          const holdsClientSecret = await vault.has(connectionSecretIds.clientSecret(id));
          if (holdsClientSecret && clientSecret === undefined) {
            throw invalid('oauth.clientSecret', 'changing the token endpoint needs the client secret again');
          }
          // Tokens belong to the old authorization server.
          dropTokens = true;
        }
        values.oauth = JSON.stringify(next);
        if (clientSecret !== undefined) pendingClientSecret = clientSecret;
        changed.push('oauth');
      }
      if (input.model !== undefined && input.model !== row.model) {
        const models = parseJson<string[] | null>(row.models, null);
        if (models === null) {
          throw new HalError('model_unavailable', 'Check the connection first: its model list is unknown', {
            details: { model: input.model, available: [] },
          });
        }
        checkModelAvailable(models, input.model);
        values.model = input.model;
        changed.push('model');
      }
      if (input.status !== undefined && input.status !== row.status) {
        values.status = input.status;
        if (input.status === 'active') values.last_error = null;
        changed.push('status');
      }
      let updated = Object.keys(values).length > 0 ? await patchRow(id, values) : row;
      if (input.apiKey !== undefined) {
        await vault.set(connectionSecretIds.apiKey(id), input.apiKey);
        changed.push('apiKey');
      }
      if (pendingClientSecret !== undefined) {
        await vault.set(connectionSecretIds.clientSecret(id), pendingClientSecret);
        changed.push('clientSecret');
      }
      if (dropTokens && (await vault.has(connectionSecretIds.oauthTokens(id)))) {
        await vault.delete(connectionSecretIds.oauthTokens(id));
        refreshers.delete(id);
        updated = await patchRow(id, {
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
      if (baseUrlChanged || input.apiKey !== undefined) {
        return (await runCheck(updated, operator)).connection;
      }
      updated = await requireRow(id);
      const connection = await toView(updated);
      emit('updated', connection);
      return connection;
    },

    async remove(id, operator) {
      const row = await requireRow(id);
      const connection = await toView(row);
      const prefix = connectionSecretIds.prefix(id);
      for (const secretId of await vault.list()) {
        if (secretId.startsWith(prefix)) await vault.delete(secretId);
      }
      await db.deleteFrom('ai_oauth_states').where('connection_id', '=', id).execute();
      await db.deleteFrom('ai_connections').where('id', '=', id).execute();
      refreshers.delete(id);
      await audited(operator, 'ai.connection.delete', id, { name: row.name, provider: row.provider });
      emit('deleted', connection);
    },

    async check(id, operator) {
      return runCheck(await requireRow(id), operator);
    },

    async replaceSecret(id, body, operator) {
      const input = parseInput(replaceSecretSchema, body);
      const row = await requireRow(id);
      if (input.apiKey !== undefined) {
        if (row.auth !== 'api_key') throw invalid('apiKey', 'this connection does not use an API key');
        await vault.set(connectionSecretIds.apiKey(id), input.apiKey);
      } else if (input.clientSecret !== undefined) {
        if (row.auth !== 'oauth') throw invalid('clientSecret', 'this connection does not use OAuth');
        await vault.set(connectionSecretIds.clientSecret(id), input.clientSecret);
      }
      await audited(operator, 'ai.connection.secret', id, {
        secret: input.apiKey !== undefined ? 'api_key' : 'oauth_client_secret',
      });
      if (input.apiKey !== undefined) return (await runCheck(await requireRow(id), operator)).connection;
      const connection = await toView(await requireRow(id));
      emit('updated', connection);
      return connection;
    },

    async startOAuth(id, operator, callbackUrl) {
      const row = await requireRow(id);
      if (row.auth !== 'oauth') throw invalid('auth', 'this connection does not use OAuth');
      const oauth = resolveOAuth(row);
      const state = createOAuthState();
      const stateHash = hashState(state);
      const { codeVerifier, codeChallenge } = await createPkcePair();
      // OpenRouter returns only `code`, so the state rides in the callback URL it sends the browser to.
      const redirectUri =
        oauth.kind === 'openrouter' ? `${callbackUrl}?state=${encodeURIComponent(state)}` : callbackUrl;
      const authorizeUrl =
        oauth.kind === 'openrouter'
          ? buildOpenRouterAuthorizationUrl({
              callbackUrl: redirectUri,
              codeChallenge,
              authorizeUrl: oauth.authorizeUrl,
              allowInsecureRequests: true,
            })
          : buildAuthorizationUrl({
              authorizeUrl: oauth.authorizeUrl,
              clientId: oauth.clientId,
              redirectUri,
              scopes: oauth.scopes,
              state,
              codeChallenge,
              ...(oauth.extraParams ? { extraParams: { ...oauth.extraParams } } : {}),
              allowInsecureRequests: true,
            });
      // Abandoned logins: their states and verifiers go, so neither piles up.
      const abandoned = await db
        .deleteFrom('ai_oauth_states')
        .where('expires_at', '<=', clock.now())
        .returning(['connection_id', 'state_hash'])
        .execute();
      for (const entry of abandoned) {
        await vault.delete(connectionSecretIds.verifier(entry.connection_id, entry.state_hash));
      }
      await vault.set(connectionSecretIds.verifier(id, stateHash), codeVerifier);
      await db
        .insertInto('ai_oauth_states')
        .values({
          state_hash: stateHash,
          connection_id: id,
          operator_id: operator.id,
          redirect_uri: redirectUri,
          expires_at: clock.now() + stateTtlMs,
          created_at: nowIso(),
        })
        .execute();
      await audited(operator, 'ai.connection.oauth', id, { phase: 'start', kind: oauth.kind });
      return { authorizeUrl };
    },

    async completeOAuth(query, operator) {
      const refused = (message: string) => new HalError('oauth_state_invalid', message);
      if (!query.state) throw refused('The login answer carries no state');
      const stateHash = hashState(query.state);
      // Deleting first makes the state single use even when two callbacks race.
      const pending = await db
        .deleteFrom('ai_oauth_states')
        .where('state_hash', '=', stateHash)
        .returningAll()
        .executeTakeFirst();
      if (!pending) throw refused('This login is unknown or was already used; start it again');
      const verifierId = connectionSecretIds.verifier(pending.connection_id, stateHash);
      const codeVerifier = await vault.get(verifierId);
      await vault.delete(verifierId);
      if (pending.expires_at <= clock.now()) throw refused('This login expired; start it again');
      if (pending.operator_id !== operator.id) throw refused('This login was started by another operator');
      if (!codeVerifier) throw refused('This login has no verifier left; start it again');
      const row = await requireRow(pending.connection_id);
      const oauth = resolveOAuth(row);
      try {
        if (query.error) {
          throw new HalError(
            'provider_auth',
            `The provider refused the login (${query.error.slice(0, 100)})`,
          );
        }
        if (!query.code) throw new HalError('provider_bad_response', 'The login answer carries no code');
        let tokens: OAuthTokens;
        if (oauth.kind === 'openrouter') {
          const issued = await exchangeOpenRouterCode({
            code: query.code,
            codeVerifier,
            keysUrl: oauth.keysUrl,
            allowInsecureRequests: true,
            ...(oauthFetch ? { fetch: oauthFetch } : {}),
          });
          tokens = { accessToken: issued.key };
        } else {
          const clientSecret = await vault.get(connectionSecretIds.clientSecret(row.id));
          tokens = await exchangeCode({
            tokenUrl: oauth.tokenUrl,
            clientId: oauth.clientId,
            ...(clientSecret ? { clientSecret } : {}),
            clientAuthMethod: oauth.clientAuthMethod,
            code: query.code,
            codeVerifier,
            redirectUri: pending.redirect_uri,
            clock,
            allowInsecureRequests: true,
            ...(oauthFetch ? { fetch: oauthFetch } : {}),
          });
        }
        await vault.set(connectionSecretIds.oauthTokens(row.id), JSON.stringify(tokens));
      } catch (error) {
        const info = errorInfo(error, vault.redact);
        await setStatus(row, row.status === 'disabled' ? 'disabled' : 'reauth_required', info);
        await audited(operator, 'ai.connection.oauth', row.id, {
          phase: 'callback',
          result: 'failed',
          error: info.code,
        });
        throw error;
      }
      await audited(operator, 'ai.connection.oauth', row.id, {
        phase: 'callback',
        result: 'ok',
        kind: oauth.kind,
      });
      return (await runCheck(await requireRow(row.id), operator)).connection;
    },

    async listClis() {
      const tools: CliTool[] = ['claude', 'codex'];
      return Promise.all(
        tools.map((tool) =>
          getCliStatus(tool, {
            env: cliEnv(),
            ...(options.cli?.homedir ? { homedir: options.cli.homedir } : {}),
            ...(options.cli?.spawn ? { spawn: options.cli.spawn } : {}),
            ...(options.cli?.statusTimeoutMs ? { timeoutMs: options.cli.statusTimeoutMs } : {}),
          }),
        ),
      );
    },

    providers() {
      const http = PROVIDER_PRESETS.map(
        (preset: ProviderPreset): ConnectionProviderView => ({
          id: preset.id,
          label: preset.label,
          defaultBaseUrl: preset.defaultBaseUrl,
          baseUrlRequired: preset.baseUrlRequired,
          authMethods: preset.authMethods,
          guide: {
            apiKey: preset.guide.apiKey,
            ...(preset.guide.oauth ? { oauth: preset.guide.oauth } : {}),
          },
          oauthPreset: defaultOAuthPreset(preset.id),
        }),
      );
      return [
        ...http,
        {
          id: 'local-cli',
          label: 'Local CLI (Claude Code, Codex)',
          defaultBaseUrl: null,
          baseUrlRequired: false,
          authMethods: ['cli'],
          guide: { cli: `${CLI_GUIDE.claude} ${CLI_GUIDE.codex}` },
          oauthPreset: null,
        },
      ];
    },

    async holdsSecret(id) {
      return (
        (await vault.has(connectionSecretIds.apiKey(id))) ||
        (await vault.has(connectionSecretIds.oauthTokens(id)))
      );
    },
  };
  return manager;
}
