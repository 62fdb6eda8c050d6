import { randomBytes } from 'node:crypto';
import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import {
  createMemoryVaultStore,
  createVault,
  generateVaultKey,
  openSealed,
  parseSealed,
  REDACTED,
  sealSecret,
  VAULT_INTEGRITY,
  VAULT_NOT_FOUND,
  type VaultKey,
  type VaultStore,
} from './index.js';

const newSecret = () => randomBytes(24).toString('base64url');

async function rejection(promise: Promise<unknown>): Promise<HalError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(HalError.isInstance(error), 'expected a HalError').toBe(true);
  return error as HalError;
}

/** A store without transactions whose writes fail after the first `limit` (a crash mid-rotation). */
function crashingStore(base: VaultStore, limit: number): VaultStore {
  let writes = 0;
  return {
    read: (id) => base.read(id),
    list: () => base.list(),
    delete: (id) => base.delete(id),
    async write(id, sealed) {
      if (writes >= limit) throw new Error('simulated crash');
      writes++;
      await base.write(id, sealed);
    },
  };
}

/** Which of `keys` opens `sealed` (exactly one must, or the entry is lost or doubly sealed). */
function openers(keys: VaultKey[], id: string, sealed: string): Array<{ key: VaultKey; plain: string }> {
  const found: Array<{ key: VaultKey; plain: string }> = [];
  for (const key of keys) {
    try {
      found.push({ key, plain: openSealed([key], id, sealed) });
    } catch {}
  }
  return found;
}

describe('createVault', () => {
  it('stores only sealed text and reads secrets back; has, list, delete, require', async () => {
    const store = createMemoryVaultStore();
    const vault = createVault({ key: generateVaultKey(), store });
    const secret = newSecret();
    expect(await vault.get('ai:conn:1:api_key')).toBeUndefined();
    expect(await vault.has('ai:conn:1:api_key')).toBe(false);
    await vault.set('ai:conn:1:api_key', secret);
    const sealed = await store.read('ai:conn:1:api_key');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(secret);
    expect(parseSealed(sealed!)?.keyId).toBe(vault.keyId);
    expect(await vault.get('ai:conn:1:api_key')).toBe(secret);
    expect(await vault.require('ai:conn:1:api_key')).toBe(secret);
    expect(await vault.has('ai:conn:1:api_key')).toBe(true);
    expect(await vault.list()).toEqual(['ai:conn:1:api_key']);

    const replacement = newSecret();
    await vault.set('ai:conn:1:api_key', replacement);
    expect(await vault.get('ai:conn:1:api_key')).toBe(replacement);

    await vault.delete('ai:conn:1:api_key');
    await vault.delete('ai:conn:1:api_key');
    expect(await vault.get('ai:conn:1:api_key')).toBeUndefined();
    const missing = await rejection(vault.require('ai:conn:1:api_key'));
    expect(missing.code).toBe(VAULT_NOT_FOUND);
    expect(missing.status).toBe(404);
  });

  it('a second vault over the same store with the same key reads the secrets; another key cannot', async () => {
    const store = createMemoryVaultStore();
    const key = generateVaultKey();
    const secret = newSecret();
    await createVault({ key, store }).set('a', secret);
    expect(await createVault({ key, store }).get('a')).toBe(secret);
    const wrong = await rejection(createVault({ key: generateVaultKey(), store }).get('a'));
    expect(wrong.code).toBe(VAULT_INTEGRITY);
    expect(wrong.details.reason).toBe('unknown_key');
    expect(wrong.message).not.toContain(secret);
  });

  it('detects a tampered and a swapped entry in the store as vault_integrity', async () => {
    const store = createMemoryVaultStore();
    const vault = createVault({ key: generateVaultKey(), store });
    await vault.set('a', newSecret());
    await vault.set('b', newSecret());
    const sealedA = (await store.read('a'))!;
    await store.write('b', sealedA);
    expect((await rejection(vault.get('b'))).code).toBe(VAULT_INTEGRITY);
    const parts = parseSealed(sealedA)!;
    const body = Buffer.from(parts.ciphertext);
    body[0] = body[0]! ^ 0x80;
    await store.write(
      'a',
      `v1.${parts.keyId}.${parts.nonce.toString('base64url')}.${body.toString('base64url')}`,
    );
    expect((await rejection(vault.get('a'))).code).toBe(VAULT_INTEGRITY);
    expect((await rejection(vault.hint('a'))).code).toBe(VAULT_INTEGRITY);
  });

  it('validates ids and secrets (validation_failed), as rejections', async () => {
    const vault = createVault({ key: generateVaultKey(), store: createMemoryVaultStore() });
    for (const id of ['', ' a', 'a b', 'a\0b', '-a', 'é', 'x'.repeat(201), 42 as unknown as string]) {
      expect((await rejection(vault.set(id, newSecret()))).code).toBe('validation_failed');
      expect((await rejection(vault.get(id))).code).toBe('validation_failed');
      expect((await rejection(vault.delete(id))).code).toBe('validation_failed');
    }
    for (const secret of ['', 'x'.repeat(64 * 1024 + 1), undefined as unknown as string]) {
      expect((await rejection(vault.set('ok', secret))).code).toBe('validation_failed');
    }
    await vault.set('ai:conn:abc-1:oauth/refresh_token.v2', newSecret());
  });

  it('hints by id, and load() reports entries that do not open without stopping', async () => {
    const store = createMemoryVaultStore();
    const vault = createVault({ key: generateVaultKey(), store });
    const secret = `${'sk'}-${randomBytes(20).toString('hex')}`;
    await vault.set('good', secret);
    await store.write('bad', 'v1.garbage');
    expect(await vault.hint('good')).toBe(`sk-…${secret.slice(-4)}`);
    expect(await vault.hint('absent')).toBeUndefined();
    expect(await vault.load()).toEqual({
      loaded: 1,
      failed: [{ id: 'bad', code: VAULT_INTEGRITY, reason: 'malformed' }],
    });
  });

  it('hints from memory: no store read after set, load or rotate; delete forgets the hint', async () => {
    const base = createMemoryVaultStore();
    let reads = 0;
    const store: VaultStore = {
      read: (id) => {
        reads++;
        return base.read(id);
      },
      write: (id, sealed) => base.write(id, sealed),
      delete: (id) => base.delete(id),
      list: () => base.list(),
    };
    const key = generateVaultKey();
    const first = newSecret();
    const vault = createVault({ key, store });
    await vault.set('a', first);
    reads = 0;
    expect(await vault.hint('a')).toBe(vault.hintOf(first));
    expect(await vault.hint('a')).toBe(vault.hintOf(first));
    expect(reads).toBe(0);

    const second = newSecret();
    await vault.set('a', second);
    expect(await vault.hint('a')).toBe(vault.hintOf(second));
    expect(reads).toBe(0);

    // Another instance (another process) learns every hint at load().
    const other = createVault({ key, store });
    await other.load();
    reads = 0;
    expect(await other.hint('a')).toBe(vault.hintOf(second));
    expect(reads).toBe(0);

    await vault.rotate(generateVaultKey());
    reads = 0;
    expect(await vault.hint('a')).toBe(vault.hintOf(second));
    expect(reads).toBe(0);

    await vault.delete('a');
    expect(await vault.hint('a')).toBeUndefined();
    expect(reads).toBe(1);
  });

  it('redacts stored secrets, learns them on set/get/load and forgets them on delete or replace', async () => {
    const store = createMemoryVaultStore();
    const key = generateVaultKey();
    const first = newSecret();
    await createVault({ key, store }).set('pre-existing', first);

    const vault = createVault({ key, store });
    expect(vault.redact(`token ${first}`)).toBe(`token ${first}`); // not known until loaded
    await vault.load();
    expect(vault.redact(`token ${first}`)).toBe(`token ${REDACTED}`);

    const second = newSecret();
    await vault.set('b', second);
    expect(vault.redact({ a: [second] })).toEqual({ a: [REDACTED] });

    const third = newSecret();
    await vault.set('b', third); // replaced: the old value is no longer a stored secret
    expect(vault.redact(`${second} ${third}`)).toBe(`${second} ${REDACTED}`);
    await vault.delete('b');
    expect(vault.redact(third)).toBe(third);

    // The same secret under two ids stays redacted until both are gone.
    const shared = newSecret();
    await vault.set('x', shared);
    await vault.set('y', shared);
    await vault.delete('x');
    expect(vault.redact(shared)).toBe(REDACTED);
    await vault.delete('y');
    expect(vault.redact(shared)).toBe(shared);
  });
});

describe('rotate', () => {
  async function seeded(count: number) {
    const oldKey = generateVaultKey();
    const base = createMemoryVaultStore();
    const secrets = new Map<string, string>();
    const vault = createVault({ key: oldKey, store: base });
    for (let i = 0; i < count; i++) {
      const secret = newSecret();
      secrets.set(`entry-${i}`, secret);
      await vault.set(`entry-${i}`, secret);
    }
    return { oldKey, newKey: generateVaultKey(), base, secrets };
  }

  it('re-seals every entry under the new key, which becomes current', async () => {
    const { oldKey, newKey, base, secrets } = await seeded(5);
    const vault = createVault({ key: oldKey, store: base });
    expect(await vault.rotate(newKey)).toEqual({ rotated: 5, alreadyCurrent: 0 });
    expect(vault.keyId).toBe(newKey.id);
    for (const [id, secret] of secrets) {
      const sealed = (await base.read(id))!;
      expect(parseSealed(sealed)?.keyId).toBe(newKey.id);
      expect(openSealed([newKey], id, sealed)).toBe(secret);
      expect(await createVault({ key: newKey, store: base }).get(id)).toBe(secret);
    }
    await vault.set('later', newSecret());
    expect(parseSealed((await base.read('later'))!)?.keyId).toBe(newKey.id);
  });

  it('crash after N writes (no transaction): every entry opens with exactly one key, none lost, none double-sealed; a re-run completes', async () => {
    const count = 6;
    for (let crashAfter = 0; crashAfter < count; crashAfter++) {
      const { oldKey, newKey, base, secrets } = await seeded(count);
      const vault = createVault({ key: oldKey, store: crashingStore(base, crashAfter) });
      await expect(vault.rotate(newKey)).rejects.toThrow('simulated crash');
      expect(vault.keyId).toBe(oldKey.id);

      let underNew = 0;
      for (const [id, secret] of secrets) {
        const sealed = (await base.read(id))!;
        const opened = openers([oldKey, newKey], id, sealed);
        expect(opened, `${id} after a crash at write ${crashAfter}`).toHaveLength(1);
        expect(opened[0]!.plain).toBe(secret); // plaintext, not a sealed entry sealed again
        expect(parseSealed(sealed)?.keyId).toBe(opened[0]!.key.id);
        if (opened[0]!.key === newKey) underNew++;
        // The interrupted instance still reads both halves.
        expect(await vault.get(id)).toBe(secret);
      }
      expect(underNew).toBe(crashAfter);

      // After a restart the app knows both keys; the re-run finishes the job.
      const restarted = createVault({ key: oldKey, store: base });
      expect(await restarted.rotate(newKey)).toEqual({
        rotated: count - crashAfter,
        alreadyCurrent: crashAfter,
      });
      for (const [id, secret] of secrets) {
        expect(openSealed([newKey], id, (await base.read(id))!)).toBe(secret);
      }
    }
  });

  it('inside store.transaction a crash leaves every entry under the old key', async () => {
    const { oldKey, newKey, base, secrets } = await seeded(4);
    const transactional: VaultStore = {
      ...base,
      transaction: (fn) => base.transaction!((inner) => fn(crashingStore(inner, 2))),
    };
    const vault = createVault({ key: oldKey, store: transactional });
    await expect(vault.rotate(newKey)).rejects.toThrow('simulated crash');
    for (const [id, secret] of secrets) {
      expect(openSealed([oldKey], id, (await base.read(id))!)).toBe(secret);
    }
    expect(await createVault({ key: oldKey, store: base }).rotate(newKey)).toEqual({
      rotated: 4,
      alreadyCurrent: 0,
    });
  });

  it('stops on an entry that does not open instead of carrying it over', async () => {
    const { oldKey, newKey, base } = await seeded(2);
    const stranger = generateVaultKey();
    await base.write('foreign', sealSecret(stranger, 'foreign', newSecret()));
    const vault = createVault({ key: oldKey, store: base });
    expect((await rejection(vault.rotate(newKey))).code).toBe(VAULT_INTEGRITY);
    // The memory store's transaction rolled back: nothing moved.
    for (const id of ['entry-0', 'entry-1']) {
      expect(parseSealed((await base.read(id))!)?.keyId).toBe(oldKey.id);
    }
  });

  it('a set that races a rotation is sealed under the new key', async () => {
    const { oldKey, newKey, base } = await seeded(3);
    const vault = createVault({ key: oldKey, store: base });
    const rotation = vault.rotate(newKey);
    const secret = newSecret();
    const write = vault.set('raced', secret);
    await Promise.all([rotation, write]);
    const sealed = (await base.read('raced'))!;
    expect(parseSealed(sealed)?.keyId).toBe(newKey.id);
    expect(openSealed([newKey], 'raced', sealed)).toBe(secret);
  });
});
