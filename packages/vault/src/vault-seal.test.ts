import { createCipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import {
  generateVaultKey,
  openSealed,
  parseSealed,
  parseVaultKey,
  sealSecret,
  VAULT_INTEGRITY,
} from './index.js';

function expectIntegrity(fn: () => unknown, reason?: string): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(HalError.isInstance(thrown), 'expected a HalError').toBe(true);
  expect((thrown as HalError).code).toBe(VAULT_INTEGRITY);
  if (reason) expect((thrown as HalError).details.reason).toBe(reason);
}

const secret = () => `${randomBytes(6).toString('hex')}-${randomBytes(24).toString('base64url')}`;

describe('sealSecret / openSealed', () => {
  it('round-trips any UTF-8 text, in the documented v1 format', () => {
    const key = generateVaultKey();
    for (const text of [secret(), 'ü ✓ 漢字 🙂', 'x'.repeat(5000)]) {
      const sealed = sealSecret(key, 'ai:conn:1:api_key', text);
      expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
      expect(sealed.split('.')[1]).toBe(key.id);
      expect(sealed).not.toContain(text);
      expect(openSealed([key], 'ai:conn:1:api_key', sealed)).toBe(text);
    }
  });

  it('uses a fresh nonce per seal: the same secret never seals to the same text', () => {
    const key = generateVaultKey();
    const value = secret();
    const nonces = new Set(
      Array.from({ length: 50 }, () => parseSealed(sealSecret(key, 'a', value))!.nonce.toString('hex')),
    );
    expect(nonces.size).toBe(50);
  });

  it('is a stable format: a pinned key, nonce and secret give a pinned entry (AES-256-GCM over HKDF)', () => {
    // Key, nonce and text are derived from fixed labels, so this vector pins the format, the key
    // derivation and the associated data across releases.
    const master = createHash('sha256').update('hal-vault test vector key').digest('base64');
    const key = parseVaultKey(master);
    const nonce = createHash('sha256').update('hal-vault test vector nonce').digest().subarray(0, 12);
    const sealed = sealSecret(key, 'vector', 'hello vault', () => nonce);
    expect(sealed).toMatchInlineSnapshot(
      `"v1.Js1pvzp8v4v6.qxmF749tK8vg6HPl.eeJm03_P_aQIPUOwKXCYFPhsCtFpWuPs5FY2"`,
    );
    expect(openSealed([key], 'vector', sealed)).toBe('hello vault');

    // The same entry built from the documented recipe with node:crypto alone.
    const masterBytes = Buffer.from(master, 'base64');
    const derive = (info: string, length: number) =>
      Buffer.from(hkdfSync('sha256', masterBytes, Buffer.alloc(0), info, length));
    const keyId = derive('hal-vault v1 key id', 9).toString('base64url');
    const cipher = createCipheriv('aes-256-gcm', derive('hal-vault v1 aes-256-gcm', 32), nonce);
    cipher.setAAD(Buffer.from(`hal-vault\0v1\0${keyId}\0vector`));
    const body = Buffer.concat([cipher.update('hello vault'), cipher.final(), cipher.getAuthTag()]);
    expect(sealed).toBe(`v1.${keyId}.${nonce.toString('base64url')}.${body.toString('base64url')}`);
  });

  it('detects every flipped byte of the entry (text and decoded ciphertext) as vault_integrity', () => {
    const key = generateVaultKey();
    const value = secret();
    const sealed = sealSecret(key, 'id-a', value);
    for (let i = 0; i < sealed.length; i++) {
      const flipped = sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1);
      if (flipped === sealed) continue;
      expectIntegrity(() => openSealed([key], 'id-a', flipped));
    }
    const parts = parseSealed(sealed)!;
    for (let i = 0; i < parts.ciphertext.length; i++) {
      const body = Buffer.from(parts.ciphertext);
      body[i] = body[i]! ^ 0x01;
      const edited = ['v1', parts.keyId, parts.nonce.toString('base64url'), body.toString('base64url')].join(
        '.',
      );
      expectIntegrity(() => openSealed([key], 'id-a', edited), 'authentication_failed');
    }
  });

  it('detects a truncated entry and one with a dropped tag', () => {
    const key = generateVaultKey();
    const sealed = sealSecret(key, 'id-a', secret());
    expectIntegrity(() => openSealed([key], 'id-a', sealed.slice(0, -4)));
    const parts = parseSealed(sealed)!;
    const noTag = [
      'v1',
      parts.keyId,
      parts.nonce.toString('base64url'),
      parts.ciphertext.subarray(0, -16).toString('base64url'),
    ];
    expectIntegrity(() => openSealed([key], 'id-a', noTag.join('.')));
    expectIntegrity(() => openSealed([key], 'id-a', ''), 'malformed');
    expectIntegrity(() => openSealed([key], 'id-a', 'plain text'), 'malformed');
  });

  it("detects entry A's ciphertext stored under id B (swap) as vault_integrity", () => {
    const key = generateVaultKey();
    const sealedA = sealSecret(key, 'ai:conn:a:api_key', secret());
    expectIntegrity(() => openSealed([key], 'ai:conn:b:api_key', sealedA), 'authentication_failed');
  });

  it('refuses an entry sealed with another key (wrong key), naming the missing key id', () => {
    const right = generateVaultKey();
    const wrong = generateVaultKey();
    const sealed = sealSecret(right, 'id', secret());
    expectIntegrity(() => openSealed([wrong], 'id', sealed), 'unknown_key');
    // A forged key id (the wrong key's id on the right key's ciphertext) fails authentication.
    const forged = sealed.replace(`.${right.id}.`, `.${wrong.id}.`);
    expectIntegrity(() => openSealed([wrong], 'id', forged), 'authentication_failed');
    expect(openSealed([wrong, right], 'id', sealed)).toBeTypeOf('string');
  });
});
