import * as oauth from 'oauth4webapi';

/** A PKCE pair (RFC 7636, method S256). Keep the verifier secret (vault) until the code exchange. */
export interface PkcePair {
  codeVerifier: string;
  codeChallenge: string;
  codeChallengeMethod: 'S256';
}

/**
 * The S256 code challenge of a verifier: `BASE64URL(SHA-256(verifier))`.
 *
 * @example
 * await calculateCodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
 * // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' (RFC 7636 appendix B)
 */
export function calculateCodeChallenge(codeVerifier: string): Promise<string> {
  return oauth.calculatePKCECodeChallenge(codeVerifier);
}

/**
 * Creates a fresh PKCE pair: a 256-bit random verifier (Web Crypto) and its S256 challenge. Pass
 * `codeVerifier` only to reproduce a known pair (test vectors).
 */
export async function createPkcePair(options: { codeVerifier?: string } = {}): Promise<PkcePair> {
  const codeVerifier = options.codeVerifier ?? oauth.generateRandomCodeVerifier();
  return {
    codeVerifier,
    codeChallenge: await calculateCodeChallenge(codeVerifier),
    codeChallengeMethod: 'S256',
  };
}

/** A fresh, unguessable `state` value (256 bits). Store only its hash server-side. */
export function createOAuthState(): string {
  return oauth.generateRandomState();
}
