import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt cost parameters. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two (at least 2^15). */
  N: number;
  r: number;
  p: number;
}

/**
 * The parameters new hashes use: OWASP's current scrypt recommendation, N=2^17, r=8, p=1 (128 MiB and a few
 * hundred milliseconds per check). Node runs scrypt on its 4-thread pool, so at most four derivations — 512 MiB —
 * are in memory at once however many logins arrive; the login rate limit keeps their number small.
 */
export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128·N·r, which is exactly Node's 32 MiB default at N=2^15, r=8.
    const maxmem = 256 * params.N * params.r;
    scrypt(password.normalize('NFC'), salt, keyLength, { ...params, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Hashes a password with scrypt and a fresh 16-byte salt into `scrypt$N$r$p$salt$hash`
 * (salt and hash base64url), so parameters can be raised later without breaking old hashes.
 */
export async function hashPassword(
  password: string,
  params: ScryptParams = DEFAULT_SCRYPT_PARAMS,
  random: (bytes: number) => Buffer = randomBytes,
): Promise<string> {
  const salt = random(SALT_LENGTH);
  const key = await derive(password, salt, params, KEY_LENGTH);
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

function parse(encoded: string): { params: ScryptParams; salt: Buffer; key: Buffer } | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N < 2 || (N & (N - 1)) !== 0) return null;
  if (N > 2 ** 20 || r > 32 || p > 16) return null;
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const key = Buffer.from(parts[5] ?? '', 'base64url');
  if (salt.length < SALT_LENGTH || key.length < 16) return null;
  return { params: { N, r, p }, salt, key };
}

/**
 * Checks a password against an encoded hash in constant time. A malformed hash is a mismatch
 * (still after a full derivation, so it costs the same time).
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parse(encoded);
  if (parsed === null) {
    await derive(password, randomBytes(SALT_LENGTH), DEFAULT_SCRYPT_PARAMS, KEY_LENGTH);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

/**
 * Whether a stored hash was made with other parameters than `params` (older, weaker defaults, or a malformed
 * record): the caller re-hashes the password it just verified, so old hashes are upgraded at the next login.
 */
export function needsRehash(encoded: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): boolean {
  const parsed = parse(encoded);
  if (parsed === null) return true;
  const current = parsed.params;
  return (
    current.N !== params.N ||
    current.r !== params.r ||
    current.p !== params.p ||
    parsed.key.length !== KEY_LENGTH
  );
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real check and returns false: used when the username does not
 * exist, so response time does not reveal which usernames are real.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword(randomBytes(18).toString('base64url'));
  await verifyPassword(password, await dummyHash);
  return false;
}

/** A random one-time password: 18 random bytes, base64url (24 characters, 144 bits). */
export function generatePassword(random: (bytes: number) => Buffer = randomBytes): string {
  return random(18).toString('base64url');
}
