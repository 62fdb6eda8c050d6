import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HINT_ELLIPSIS, hintOf } from './index.js';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.';
const randomText = (length: number) =>
  Array.from({ length }, () => alphabet[randomInt(alphabet.length)]).join('');

describe('hintOf', () => {
  it('shows a dash prefix, an ellipsis and the last 4 characters', () => {
    const body = randomBytes(24).toString('hex');
    expect(hintOf(`${'sk'}-${body}`)).toBe(`sk-…${body.slice(-4)}`);
    expect(hintOf(`${'sk'}-${'ant'}-${body}`)).toBe(`sk-…${body.slice(-4)}`);
    expect(hintOf(`${'xai'}-${body}`)).toBe(`xai-…${body.slice(-4)}`);
  });

  it('shows 3 characters of a known vendor prefix only', () => {
    const body = randomBytes(20).toString('base64url');
    expect(hintOf(`${'AI'}za${body}`)).toBe(`AIz…${body.slice(-4)}`);
    expect(hintOf(`${'gh'}p_${body}`)).toBe(`ghp…${body.slice(-4)}`);
  });

  it('shows no prefix for an unknown secret, and nothing at all for a very short one', () => {
    const body = randomBytes(20).toString('hex');
    expect(hintOf(body)).toBe(`…${body.slice(-4)}`);
    expect(hintOf('abcdefghijk')).toBe(HINT_ELLIPSIS);
    expect(hintOf('')).toBe(HINT_ELLIPSIS);
  });

  it('never reveals more than the last 4 characters plus a ≤3-character prefix (a dashed marker keeps its dash), nor over a third (random)', () => {
    for (let i = 0; i < 2000; i++) {
      const length = randomInt(0, 80);
      const prefix = ['', `${'sk'}-`, 'ab-', 'AIza', 'ghp_', 'xoxb-'][randomInt(6)]!;
      const secret = prefix + randomText(length);
      const hint = hintOf(secret);
      const [shownPrefix, suffix, ...rest] = hint.split(HINT_ELLIPSIS);
      expect(rest, hint).toEqual([]);
      expect(secret.startsWith(shownPrefix!)).toBe(true);
      expect(secret.endsWith(suffix!)).toBe(true);
      expect(suffix!.length).toBeLessThanOrEqual(4);
      // A type marker is a short word and its dash (`sk-`, `xai-`); a vendor prefix shows 3 characters.
      expect(shownPrefix!.replace(/-$/, '').length).toBeLessThanOrEqual(3);
      if (secret.length < 12) expect(hint).toBe(HINT_ELLIPSIS);
      expect((shownPrefix!.length + suffix!.length) * 3).toBeLessThanOrEqual(secret.length);
    }
  });
});
