import { describe, expect, it } from 'vitest';
import {
  debateContextText,
  diffDocumentVersions,
  estimateTokens,
  roundsToCompact,
} from './debate-context.js';
import { debateSlug } from './debate-engine.js';
import type { DebateRoundRecord } from './debate-store.js';

const round = (n: number, size = 10): DebateRoundRecord => ({
  n,
  speakerId: n % 2 ? 'a' : 'b',
  input: `input ${n}`,
  reply: `reply ${n} ${'x'.repeat(size)}`,
  verdict: { decision: 'continue', agreement_level: 'partial', reason: 'r', agreed: [], disputed: [] },
  documentVersion: n,
  createdAt: '2026-01-01T00:00:00Z',
});

describe('debate context', () => {
  const debate = {
    topic: 'Tabs?',
    direction: null,
    document: { version: 2, text: '# Doc' },
    compactedSummary: 'Earlier: both like formatters.',
    compactedThrough: 1,
  };

  it('carries the topic, the document, the summary and only the rounds after it', () => {
    const text = debateContextText(debate, [round(1), round(2)], (id) => id.toUpperCase());
    expect(text).toContain('## Topic\n\nTabs?');
    expect(text).toContain('## Working document (version 2)\n\n# Doc');
    expect(text).toContain(
      '## Summary of rounds 1–1 (written by the moderator)\n\nEarlier: both like formatters.',
    );
    expect(text).toContain('### Round 2 — B');
    expect(text).not.toContain('### Round 1');
  });

  it('compacts only past the configured share, never the most recent rounds', () => {
    const rounds = [1, 2, 3, 4].map((n) => round(n, 600));
    const contextText = debateContextText(
      { ...debate, compactedSummary: null, compactedThrough: 0 },
      rounds,
      String,
    );
    const settings = { contextText, rounds, compactedThrough: 0, share: 0.5, keepRecent: 2 };
    expect(estimateTokens(contextText)).toBeGreaterThan(500);
    expect(roundsToCompact({ ...settings, contextWindow: 100_000 })).toBeNull();
    expect(roundsToCompact({ ...settings, contextWindow: 1000 })).toBe(2);
    expect(
      roundsToCompact({ ...settings, compactedThrough: 2, rounds: rounds.slice(2), contextWindow: 10 }),
    ).toBeNull();
  });

  it('diffs two document versions line by line', () => {
    expect(diffDocumentVersions({ text: 'a\nb\nc' }, { text: 'a\nB\nc\nd' })).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
      { kind: 'added', text: 'd' },
    ]);
  });

  it('makes Wiki.js slugs of any script, unique per debate', () => {
    expect(debateSlug('Tabs or Spaces?!', 'debate_1a2b3c4d')).toBe(
      'tabs-or-spaces-1a2b3c4d'.replace('1a2b3c4d', '2b3c4d'),
    );
    expect(debateSlug('탭 대 스페이스', 'abc')).toBe('탭-대-스페이스-abc');
    expect(debateSlug('???', 'id9')).toBe('debate-id9');
  });
});
