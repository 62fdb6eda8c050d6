import { describe, expect, it } from 'vitest';
import { extractMentions, maskCode, parseAddressing } from './room-addressing.js';

const participants = [
  { id: 'claude', name: 'Claude', active: true },
  { id: 'opus', name: 'Claude Opus', active: true },
  { id: 'gpt', name: 'GPT', active: true },
  { id: 'gemini', name: '제미니', active: true },
  { id: 'kim', name: '김 비서', active: true },
  { id: 'off', name: 'Sleeper', active: false },
];

describe('parseAddressing', () => {
  const table: Array<[string, string[], string[], boolean?]> = [
    ['hello everyone', [], []],
    ['@Claude check the logs', ['claude'], []],
    ['@claude check the logs', ['claude'], []],
    ['@CLAUDE, look', ['claude'], []],
    ['please @Claude Opus look', ['opus'], []],
    ['@claude opus and @gpt compare', ['opus', 'gpt'], []],
    ['@GPT @Claude', ['gpt', 'claude'], []],
    ['@gpt @gpt', ['gpt'], []],
    ['@제미니 상태 알려줘', ['gemini'], []],
    ['@김 비서 일정 확인', ['kim'], []],
    ['(@gpt) what do you think?', ['gpt'], []],
    ['ask @gpt.', ['gpt'], []],
    ['@gpt!', ['gpt'], []],
    ['@Claudette hi', [], ['Claudette']],
    ['@제미니야 hi', [], ['제미니야']],
    ['@bob do it', [], ['bob']],
    ['@bob and @gpt', ['gpt'], ['bob']],
    ['write to ops@example.com please', [], []],
    ['claude@gpt.com is an address', [], []],
    ['Claude: check the logs', ['claude'], []],
    ['  gpt, summarise', ['gpt'], []],
    ['제미니： 요약해줘', ['gemini'], []],
    ['제미니， 요약해줘', ['gemini'], []],
    ['Claude, GPT: compare', ['claude', 'gpt'], []],
    ['Claude Opus: go', ['opus'], []],
    ['Note: this is not a name', [], []],
    ['http://example.com is up', [], []],
    ['tell Claude: hi', [], []],
    ['Claude, please look', ['claude'], []],
    ['@Sleeper wake up', ['off'], []],
    ['`@bob` is a handle', [], []],
    ['use ``@bob ` x`` literally', [], []],
    ['```\n@bob\n```\n@gpt', ['gpt'], []],
    ['~~~sh\nClaude: x @bob\n~~~', [], []],
    ['```\n@bob unclosed', [], []],
    ['@all status', [], [], true],
    ['@모두 상태', [], [], true],
    ['@all and @gpt', [], [], true],
    ['@ alone', [], []],
    ['@@gpt', ['gpt'], []],
  ];

  it.each(table)('%j', (text, targets, unknown, everyone = false) => {
    expect(parseAddressing(text, participants)).toEqual({ targets, unknown, everyone });
  });

  it('prefers a participant literally named like a broadcast word', () => {
    const withAll = [...participants, { id: 'x', name: 'all', active: true }];
    expect(parseAddressing('@all hi', withAll)).toEqual({ targets: ['x'], unknown: [], everyone: false });
  });

  it('matches decomposed Hangul against a composed name', () => {
    expect(parseAddressing('@제미니 hi'.normalize('NFD'), participants).targets).toEqual(['gemini']);
  });
});

describe('maskCode', () => {
  it('keeps the length and line breaks', () => {
    const text = 'a `b` c\n```\nd\n```\ne';
    const masked = maskCode(text);
    expect(masked.length).toBe(text.length);
    expect(masked.split('\n')).toHaveLength(text.split('\n').length);
    expect(masked).not.toContain('b');
    expect(masked).not.toContain('d');
    expect(masked).toContain('e');
  });
});

describe('extractMentions', () => {
  it('returns active others only, never self, never unknown or broadcast', () => {
    expect(
      extractMentions('@GPT and @Claude, see @Sleeper and @bob and @all', participants, 'claude'),
    ).toEqual(['gpt']);
  });

  it('uses the same grammar as operator addressing (leading name, code spans)', () => {
    expect(extractMentions('제미니: 확인 부탁해 `@GPT`', participants, 'claude')).toEqual(['gemini']);
  });
});
