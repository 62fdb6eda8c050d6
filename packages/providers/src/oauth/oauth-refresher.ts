import { HalError } from '@hal-ai/spec';
import type { OAuthTokens } from './oauth-tokens.js';

/** Settings of {@link createTokenRefresher}. */
export interface TokenRefresherSettings {
  /** Calls the token endpoint, e.g. `(refreshToken) => refreshTokens({ ...endpoint, refreshToken })`. */
  refresh: (refreshToken: string) => Promise<OAuthTokens>;
  /** Default `Date`. */
  clock?: { now(): number };
  /** Refresh this long before `expiresAt`, so a token does not expire mid-request. Default 60 000 ms. */
  refreshBeforeMs?: number;
}

/** Keeps OAuth access tokens fresh; see {@link createTokenRefresher}. */
export interface TokenRefresher {
  /** True when the access token has expired or expires within `refreshBeforeMs`. */
  isExpiring(tokens: OAuthTokens): boolean;
  /** The tokens as they are if still fresh, else refreshed ones. */
  getFreshTokens(tokens: OAuthTokens): Promise<OAuthTokens>;
  /** Refreshes now (e.g. after a provider answered 401). */
  refresh(tokens: OAuthTokens): Promise<OAuthTokens>;
}

/**
 * Refreshes OAuth tokens with single flight: concurrent callers holding the same refresh token share
 * one upstream call, because many providers rotate refresh tokens and a second parallel refresh
 * would present an already-spent token and lose the grant. A missing refresh token or an
 * `invalid_grant` answer ends in `HalError('reauth_required')`; the caller stores the new tokens.
 *
 * @example
 * const refresher = createTokenRefresher({ refresh: (refreshToken) => refreshTokens({ ...google, refreshToken }) });
 * const tokens = await refresher.getFreshTokens(stored); // save if tokens !== stored
 */
export function createTokenRefresher(settings: TokenRefresherSettings): TokenRefresher {
  const clock = settings.clock ?? Date;
  const refreshBeforeMs = settings.refreshBeforeMs ?? 60_000;
  const inFlight = new Map<string, Promise<OAuthTokens>>();

  function isExpiring(tokens: OAuthTokens): boolean {
    if (!tokens.expiresAt) return false;
    const expiresAt = Date.parse(tokens.expiresAt);
    return Number.isNaN(expiresAt) || expiresAt - refreshBeforeMs <= clock.now();
  }

  function refresh(tokens: OAuthTokens): Promise<OAuthTokens> {
    const refreshToken = tokens.refreshToken;
    if (!refreshToken) {
      return Promise.reject(
        new HalError('reauth_required', 'The access token expired and there is no refresh token'),
      );
    }
    const running = inFlight.get(refreshToken);
    if (running) return running;
    // Deferred one tick so the promise is in the map before `refresh` runs, even if it throws synchronously.
    const call = Promise.resolve().then(async () => {
      try {
        const fresh = await settings.refresh(refreshToken);
        return { ...fresh, refreshToken: fresh.refreshToken ?? refreshToken };
      } catch (error) {
        if (HalError.isInstance(error)) throw error;
        if ((error as { error?: unknown } | null)?.error === 'invalid_grant') {
          throw new HalError('reauth_required', 'The refresh token was refused; log in again', {
            cause: error,
          });
        }
        throw new HalError('provider_unavailable', 'The token refresh failed', { cause: error });
      } finally {
        inFlight.delete(refreshToken);
      }
    });
    inFlight.set(refreshToken, call);
    return call;
  }

  return {
    isExpiring,
    refresh,
    async getFreshTokens(tokens) {
      return isExpiring(tokens) ? refresh(tokens) : tokens;
    },
  };
}
