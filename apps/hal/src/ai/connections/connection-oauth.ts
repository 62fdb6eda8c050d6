import {
  buildAuthorizationUrl,
  buildOpenRouterAuthorizationUrl,
  type ConnectionOAuthClient,
  canRefreshOAuthClient,
  createOAuthState,
  createPkcePair,
  createTokenRefresher,
  errorTypeToken,
  exchangeCode,
  exchangeOpenRouterCode,
  type OAuthFetch,
  type OAuthTokens,
  refreshTokens,
  resolveOAuthClient,
  type TokenRefresher,
  tokensFromOpenRouterKey,
} from '@hal-ai/providers';
import { type ConnectionStatus, type ErrorInfo, HalError } from '@hal-ai/spec';
import type { Clock } from '../../domain/core/clock.js';
import type { Operator } from '../../platform/http/env.js';
import { sha256Hex } from '../../platform/platform-hash.js';
import type { ConnectionSecrets } from './connection-secrets.js';
import { type ConnectionRow, type ConnectionStore, rowOAuth, storedError } from './connection-store.js';

/** How long a started login may wait for its callback (SPEC §2: ten minutes). */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** The query of the OAuth callback. */
export interface OAuthCallbackQuery {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
}

/** Writes a connection's status and last error, and tells the listeners. */
export type ConnectionStatusWriter = (
  row: ConnectionRow,
  status: ConnectionStatus,
  lastError: ErrorInfo | null,
) => Promise<ConnectionRow>;

/** Appends an audit entry about a connection (details are redacted on the way). */
export type ConnectionAuditor = (
  operator: Operator | undefined,
  action: string,
  connectionId: string,
  details: Record<string, unknown>,
) => Promise<void>;

/** Settings of {@link createConnectionOAuth}. */
export interface ConnectionOAuthSettings {
  store: ConnectionStore;
  secrets: ConnectionSecrets;
  clock: Clock;
  setStatus: ConnectionStatusWriter;
  audit: ConnectionAuditor;
  /** `fetch` for the OAuth endpoints. Default the global `fetch`. */
  fetch?: OAuthFetch;
  /** Lifetime of a login's state. Default {@link OAUTH_STATE_TTL_MS}. */
  stateTtlMs?: number;
}

/** The OAuth side of the connections: login start and callback, and tokens kept fresh. */
export interface ConnectionOAuth {
  /** The row's OAuth client (`validation_failed` naming what a custom client lacks). */
  client(row: ConnectionRow): ConnectionOAuthClient;
  /** A fresh state and PKCE pair; the state is stored hashed, the verifier in the vault. */
  start(row: ConnectionRow, operator: Operator, callbackUrl: string): Promise<{ authorizeUrl: string }>;
  /**
   * Finishes a login: the state must be known, unexpired, unused and the same operator's; the code is
   * exchanged and the tokens stored. Returns the connection's row, or throws `oauth_state_invalid`
   * (nothing changes) or the exchange's error (the connection then asks for a new login).
   */
  complete(query: OAuthCallbackQuery, operator: Operator): Promise<ConnectionRow>;
  /**
   * The access token of an OAuth connection, refreshed first (single flight) when it is about to
   * expire; no token or a failed refresh → `reauth_required`, and the connection's status says so.
   */
  freshTokens(row: ConnectionRow): Promise<OAuthTokens>;
  /** Whether tokens a model was built with are about to expire (`true` when unknown). */
  isExpiring(connectionId: string, tokens: OAuthTokens): boolean;
  /** Forgets a connection's refresher (tokens dropped or the connection deleted). */
  forget(connectionId: string): void;
}

// The state is stored only as its hash, so the table never holds a live state.
const hashState = (state: string) => sha256Hex(state);

/**
 * Creates the OAuth part of the connections (SPEC §2 "OAuth"): authorization code + PKCE S256, or
 * OpenRouter's key issuance, and server-side refresh.
 *
 * @example
 * const oauth = createConnectionOAuth({ store, secrets, clock, setStatus, audit });
 * const { authorizeUrl } = await oauth.start(row, operator, callbackUrl);
 */
export function createConnectionOAuth(settings: ConnectionOAuthSettings): ConnectionOAuth {
  const { store, secrets, clock, setStatus, audit } = settings;
  const stateTtlMs = settings.stateTtlMs ?? OAUTH_STATE_TTL_MS;
  const fetchOption = settings.fetch ? { fetch: settings.fetch } : {};
  const refreshers = new Map<string, TokenRefresher>();
  const client = (row: ConnectionRow) => resolveOAuthClient(row.provider, rowOAuth(row));

  function refresherFor(connectionId: string): TokenRefresher {
    let refresher = refreshers.get(connectionId);
    if (!refresher) {
      refresher = createTokenRefresher({
        clock,
        refresh: async (refreshToken) => {
          // Endpoint settings are read at refresh time, so an edited client takes effect at once.
          const current = client(await store.require(connectionId));
          if (current.kind !== 'authorization-code' || !canRefreshOAuthClient(current)) {
            throw new HalError('reauth_required', 'This login cannot be refreshed; log in again');
          }
          const clientSecret = await secrets.clientSecret(connectionId);
          return refreshTokens({
            tokenUrl: current.tokenUrl,
            clientId: current.clientId,
            ...(clientSecret ? { clientSecret } : {}),
            clientAuthMethod: current.clientAuthMethod,
            refreshToken,
            clock,
            allowInsecureRequests: true,
            ...fetchOption,
          });
        },
      });
      refreshers.set(connectionId, refresher);
    }
    return refresher;
  }

  async function exchange(
    row: ConnectionRow,
    oauth: ConnectionOAuthClient,
    code: string,
    codeVerifier: string,
    redirectUri: string,
  ): Promise<OAuthTokens> {
    if (oauth.kind === 'openrouter') {
      const issued = await exchangeOpenRouterCode({
        code,
        codeVerifier,
        keysUrl: oauth.keysUrl,
        allowInsecureRequests: true,
        ...fetchOption,
      });
      return tokensFromOpenRouterKey(issued);
    }
    const clientSecret = await secrets.clientSecret(row.id);
    return exchangeCode({
      tokenUrl: oauth.tokenUrl,
      clientId: oauth.clientId,
      ...(clientSecret ? { clientSecret } : {}),
      clientAuthMethod: oauth.clientAuthMethod,
      code,
      codeVerifier,
      redirectUri,
      clock,
      allowInsecureRequests: true,
      ...fetchOption,
    });
  }

  return {
    client,

    async start(row, operator, callbackUrl) {
      const oauth = client(row);
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
      for (const abandoned of await store.removeExpiredLogins()) {
        await secrets.dropVerifier(abandoned.connectionId, abandoned.stateHash);
      }
      await secrets.setVerifier(row.id, stateHash, codeVerifier);
      await store.insertLogin({
        state_hash: stateHash,
        connection_id: row.id,
        operator_id: operator.id,
        redirect_uri: redirectUri,
        expires_at: clock.now() + stateTtlMs,
        created_at: new Date(clock.now()).toISOString(),
      });
      await audit(operator, 'ai.connection.oauth', row.id, { phase: 'start', kind: oauth.kind });
      return { authorizeUrl };
    },

    async complete(query, operator) {
      const refused = (message: string) => new HalError('oauth_state_invalid', message);
      if (!query.state) throw refused('The login answer carries no state');
      const stateHash = hashState(query.state);
      // Taking the state first makes it single use even when two callbacks race.
      const pending = await store.takeLogin(stateHash);
      if (!pending) throw refused('This login is unknown or was already used; start it again');
      const codeVerifier = await secrets.takeVerifier(pending.connection_id, stateHash);
      if (pending.expires_at <= clock.now()) throw refused('This login expired; start it again');
      if (pending.operator_id !== operator.id) throw refused('This login was started by another operator');
      if (!codeVerifier) throw refused('This login has no verifier left; start it again');
      const row = await store.require(pending.connection_id);
      const oauth = client(row);
      try {
        if (query.error) {
          // The redirect's `error` is the authorization server's word: kept only when it is an identifier
          // (`access_denied`), never free text, like every foreign answer HAL stores.
          const token = errorTypeToken(query.error);
          throw new HalError(
            'provider_auth',
            `The provider refused the login${token ? ` (${token})` : ''}`,
            token ? { details: { oauthError: token } } : {},
          );
        }
        if (!query.code) throw new HalError('provider_bad_response', 'The login answer carries no code');
        const tokens = await exchange(row, oauth, query.code, codeVerifier, pending.redirect_uri);
        await secrets.setTokens(row.id, tokens);
      } catch (error) {
        const info = storedError(error, secrets.redact);
        await setStatus(row, row.status === 'disabled' ? 'disabled' : 'reauth_required', info);
        await audit(operator, 'ai.connection.oauth', row.id, {
          phase: 'callback',
          result: 'failed',
          error: info.code,
        });
        throw error;
      }
      await audit(operator, 'ai.connection.oauth', row.id, {
        phase: 'callback',
        result: 'ok',
        kind: oauth.kind,
      });
      return store.require(row.id);
    },

    async freshTokens(row) {
      const tokens = await secrets.tokens(row.id);
      if (!tokens?.accessToken) {
        throw new HalError(
          'reauth_required',
          `Connection ${row.name} is not logged in; start the OAuth login`,
        );
      }
      const refresher = refresherFor(row.id);
      if (!refresher.isExpiring(tokens)) return tokens;
      try {
        const fresh = await refresher.refresh(tokens);
        // Concurrent callers share one refresh; each writes the same tokens, which is harmless.
        await secrets.setTokens(row.id, fresh);
        return fresh;
      } catch (error) {
        const failure = HalError.isInstance(error)
          ? error
          : new HalError('reauth_required', 'The token refresh failed', { cause: error });
        if (failure.code === 'reauth_required' || failure.code === 'provider_auth') {
          await setStatus(await store.require(row.id), 'reauth_required', {
            code: 'reauth_required',
            message: failure.message,
          });
          throw new HalError('reauth_required', failure.message, { cause: error });
        }
        throw failure;
      }
    },

    isExpiring(connectionId, tokens) {
      return refreshers.get(connectionId)?.isExpiring(tokens) !== false;
    },

    forget(connectionId) {
      refreshers.delete(connectionId);
    },
  };
}
