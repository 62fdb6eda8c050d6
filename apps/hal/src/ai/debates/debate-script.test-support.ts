import type { RoomTestApp } from '../rooms/room-app.test-support.js';

/** A moderator's verdict as JSON (SPEC §9), agreeing and concluding unless overridden. */
export function concludingVerdict(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    decision: 'conclude',
    agreement_level: 'agree',
    reason: 'Both sides accept a formatter.',
    agreed: ['use a formatter'],
    disputed: [],
    ...overrides,
  });
}

/**
 * Scripts the fakes for a two-round debate that concludes, the moderator being a connection on the OpenAI fake:
 * round 1 Claude speaks, round 2 GPT; both rounds agree (the first `conclude` is refused: one agreeing round), then
 * the conclusion.
 */
export function enqueueConcludingDebate(t: Pick<RoomTestApp, 'gpt' | 'claude'>): void {
  t.gpt.enqueue(
    { text: 'Claude, answer why a formatter settles it.' },
    { text: '# Working document\n\n- agreed: a formatter' },
    { text: concludingVerdict() },
    { text: 'GPT, do you agree with Claude?' },
    { text: 'GPT: I agree, a formatter settles it.' },
    { text: '# Working document\n\n- agreed: a formatter\n- agreed: its default width' },
    { text: `\`\`\`json\n${concludingVerdict()}\n\`\`\`` },
    { text: 'Conclusion: use a formatter with its default width.' },
  );
  t.claude.enqueue({ text: 'Claude: a formatter ends the argument.' });
}
