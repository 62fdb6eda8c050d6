import {
  type ConnectionCredentials,
  createProvider,
  credentialsFromOAuthToken,
  type HttpProviderId,
  type HttpProviderSettings,
  type OAuthTokens,
} from '@hal-ai/providers';
import { CLI_DEFAULT_MODEL, createCliProvider } from '@hal-ai/providers/cli';
import { HalError, type LanguageModel, type ModelProvider } from '@hal-ai/spec';
import { type ConnectionCliSettings, cliMcpFor, cliRunSettings, rowCliTool } from './connection-cli.js';
import type { ConnectionOAuth } from './connection-oauth.js';
import type { ConnectionSecrets } from './connection-secrets.js';
import type { ConnectionRow, ConnectionStore } from './connection-store.js';

/** Timeouts every HTTP provider call gets. */
export interface ConnectionProviderTimeouts {
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
}

/** Settings of {@link createConnectionModels}. */
export interface ConnectionModelsSettings {
  store: ConnectionStore;
  secrets: ConnectionSecrets;
  oauth: ConnectionOAuth;
  /**
   * The connections' shared revision (bumped by every row or secret write of any instance): a cached model built
   * at another revision is rebuilt, so a `/model`, a disable or a new key on another instance is used at once.
   */
  revision(): Promise<number>;
  timeouts: ConnectionProviderTimeouts;
  /** The undici dispatcher provider calls go through (proxies, tests). */
  dispatcher?: HttpProviderSettings['dispatcher'];
  /** How request bodies become JSON text (default the providers' `JSON.stringify`). */
  encodeBody?: HttpProviderSettings['encodeBody'];
  cli?: ConnectionCliSettings;
}

/**
 * The models of the connections: each connection's provider built from its row and its vault
 * secret, and a cache of ready models so a turn does not rebuild one.
 */
export interface ConnectionModels {
  /** The row's provider; `used.tokens` receives the OAuth tokens it was built with. */
  provider(row: ConnectionRow, used?: { tokens?: OAuthTokens }): Promise<ModelProvider>;
  /**
   * The connection's model, cached until any connection or secret changes on any instance (or, for OAuth,
   * until its token is about to expire). A disabled connection → `connection_inactive`; no model → `model_unavailable`.
   */
  languageModel(id: string): Promise<LanguageModel>;
  /** Drops every cached model (a row or a secret changed). */
  forget(): void;
}

interface CachedModel {
  model: LanguageModel;
  /** The OAuth tokens it was built with (OAuth connections only). */
  tokens?: OAuthTokens;
  /** The shared revision it was built at. */
  revision: number;
}

/**
 * Creates the connections' model builder and cache.
 *
 * @example
 * const models = createConnectionModels({ store, secrets, oauth, timeouts });
 * const model = await models.languageModel(connectionId);
 */
export function createConnectionModels(settings: ConnectionModelsSettings): ConnectionModels {
  const { store, secrets, oauth, timeouts } = settings;
  const cli = settings.cli ?? {};
  // Building a model (row read, decrypting the key, a new provider) per turn was measurable CPU on the
  // request path, so models are cached per connection. A local change bumps `generation` and drops them
  // all; a build that overlapped a change is used once but not cached. A change by another process shows in the
  // shared revision, read before every use.
  const cache = new Map<string, CachedModel>();
  let generation = 0;

  async function provider(row: ConnectionRow, used: { tokens?: OAuthTokens } = {}): Promise<ModelProvider> {
    if (row.provider === 'local-cli') {
      return createCliProvider({
        tool: rowCliTool(row),
        ...(row.model ? { model: row.model } : {}),
        ...cliRunSettings(cli),
        ...cliMcpFor(cli, row),
      });
    }
    const httpProvider = row.provider as HttpProviderId;
    let credentials: ConnectionCredentials | Record<string, never> = {};
    if (row.auth === 'oauth') {
      const tokens = await oauth.freshTokens(row);
      used.tokens = tokens;
      credentials = credentialsFromOAuthToken(httpProvider, tokens.accessToken);
    } else {
      const apiKey = await secrets.apiKey(row.id);
      if (apiKey !== undefined) credentials = { apiKey };
    }
    return createProvider({
      provider: httpProvider,
      ...credentials,
      ...(row.base_url ? { baseUrl: row.base_url } : {}),
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher } : {}),
      ...(settings.encodeBody ? { encodeBody: settings.encodeBody } : {}),
      ...timeouts,
    } as Parameters<typeof createProvider>[0]);
  }

  return {
    provider,

    async languageModel(id) {
      const revision = await settings.revision();
      const cached = cache.get(id);
      // An OAuth model is reused only while its access token is not about to expire; then it is
      // rebuilt, which refreshes the token.
      if (cached && cached.revision === revision && !(cached.tokens && oauth.isExpiring(id, cached.tokens))) {
        return cached.model;
      }
      const started = generation;
      const row = await store.require(id);
      if (row.status === 'disabled') {
        throw new HalError('connection_inactive', `Connection ${row.name} is disabled`, {
          details: { connectionId: id },
        });
      }
      const used: { tokens?: OAuthTokens } = {};
      const built = await provider(row, used);
      const modelId =
        row.model ?? (row.provider === 'local-cli' ? CLI_DEFAULT_MODEL[rowCliTool(row)] : undefined);
      if (!modelId) {
        throw new HalError('model_unavailable', `Connection ${row.name} has no model chosen`, {
          details: { connectionId: id },
        });
      }
      const model = built.languageModel(modelId);
      if (generation === started) {
        cache.set(id, used.tokens ? { model, tokens: used.tokens, revision } : { model, revision });
      }
      return model;
    },

    forget() {
      generation++;
      cache.clear();
    },
  };
}
