import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCRYPT_PARAMS,
  generatePassword,
  hashPassword,
  needsRehash,
  verifyAgainstDummy,
  verifyPassword,
} from './auth-password.js';

describe('password hashing', () => {
  it("encodes scrypt$N$r$p$salt$hash at OWASP's N=2^17, r=8, p=1 with a 16-byte salt", async () => {
    const password = generatePassword();
    const encoded = await hashPassword(password);
    const [scheme, N, r, p, salt, hash] = encoded.split('$');
    expect(scheme).toBe('scrypt');
    expect(Number(N)).toBe(2 ** 17);
    expect([Number(r), Number(p)]).toEqual([8, 1]);
    expect(Buffer.from(salt ?? '', 'base64url')).toHaveLength(16);
    expect(Buffer.from(hash ?? '', 'base64url')).toHaveLength(32);
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    expect(needsRehash(encoded)).toBe(false);

    expect(await verifyPassword(password, encoded)).toBe(true);
    expect(await verifyPassword(`${password}x`, encoded)).toBe(false);
    // Same password, new salt, different hash.
    expect(await hashPassword(password)).not.toBe(encoded);
  });

  it('verifies with the parameters stored in the hash', async () => {
    const password = randomBytes(12).toString('base64url');
    const cheap = await hashPassword(password, { N: 2 ** 10, r: 8, p: 1 });
    expect(cheap.startsWith('scrypt$1024$8$1$')).toBe(true);
    expect(await verifyPassword(password, cheap)).toBe(true);
  });

  it('asks for a re-hash when the stored parameters differ from the current ones', async () => {
    const password = randomBytes(12).toString('base64url');
    const old = await hashPassword(password, { N: 2 ** 10, r: 8, p: 1 });
    expect(needsRehash(old)).toBe(true);
    expect(needsRehash(old, { N: 2 ** 10, r: 8, p: 1 })).toBe(false);
    expect(needsRehash(old, { N: 2 ** 10, r: 8, p: 2 })).toBe(true);
    expect(needsRehash('plain')).toBe(true);
  });

  it('treats malformed or hostile hashes as a mismatch', async () => {
    for (const encoded of [
      '',
      'plain',
      'scrypt$3$8$1$AAAA$BBBB',
      'scrypt$1073741824$8$1$AAAAAAAAAAAAAAAAAAAAAA$BBBBBBBBBBBBBBBBBBBBBB',
    ]) {
      expect(await verifyPassword('x', encoded)).toBe(false);
    }
    expect(await verifyAgainstDummy('x')).toBe(false);
  });

  it('generates 24-character base64url passwords, different each time', () => {
    const a = generatePassword();
    expect(a).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(generatePassword()).not.toBe(a);
  });
});
