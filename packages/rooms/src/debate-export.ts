/**
 * A debate as one Markdown file (SPEC §9 "Artifacts"): topic, participants, status, conclusion, the working
 * document, and the round log with each round's verdict. The same sections are what the Wiki.js pages carry.
 */
import type { Debate, DebateVerdict } from '@hal-ai/spec';
import { type NameOf, roundText } from './debate-context.js';
import type { DebateRoundRecord } from './debate-store.js';

/** What {@link debateToMarkdown} and the page builders need. */
export interface DebateExportInput {
  debate: Debate;
  rounds: readonly DebateRoundRecord[];
  nameOf: NameOf;
}

function list(items: readonly string[]): string {
  return items.length > 0 ? items.map((item) => `  - ${item}`).join('\n') : '  - (none)';
}

/** A verdict as Markdown lines. */
export function verdictMarkdown(verdict: DebateVerdict): string {
  return [
    `**Verdict:** ${verdict.decision} · agreement: ${verdict.agreement_level}`,
    '',
    `- reason: ${verdict.reason}`,
    `- agreed:\n${list(verdict.agreed)}`,
    `- disputed:\n${list(verdict.disputed)}`,
    ...(verdict.question ? [`- question for the operator: ${verdict.question}`] : []),
  ].join('\n');
}

/** The round log as Markdown: every round in full, with its verdict. */
export function roundLogMarkdown(input: DebateExportInput): string {
  if (input.rounds.length === 0) return '(no round yet)';
  return input.rounds
    .map((round) => `${roundText(round, input.nameOf)}\n\n${verdictMarkdown(round.verdict)}`)
    .join('\n\n---\n\n');
}

/** The working document's current version as Markdown. */
export function workingDocumentMarkdown(debate: Debate): string {
  return debate.document.text.trim() || '(empty)';
}

/**
 * The whole debate as one Markdown file.
 *
 * @example
 * const markdown = debateToMarkdown({ debate, rounds, nameOf: (id) => names.get(id) ?? id });
 */
export function debateToMarkdown(input: DebateExportInput): string {
  const { debate, nameOf } = input;
  return [
    `# Debate: ${debate.topic}`,
    '',
    `- status: ${debate.status}${debate.reason ? ` (${debate.reason})` : ''}`,
    `- moderator: ${nameOf(debate.moderatorId)}`,
    `- debaters: ${debate.debaterIds.map(nameOf).join(', ')}`,
    `- rounds: ${debate.round} of ${debate.maxRounds} · agreement streak: ${debate.agreementStreak}`,
    `- tokens: ${debate.tokensUsed} of ${debate.tokenBudget} (as the providers reported them)`,
    `- started: ${debate.createdAt} · updated: ${debate.updatedAt}`,
    '',
    '## Conclusion',
    '',
    debate.conclusion?.trim() || '(no conclusion)',
    '',
    `## Working document (version ${debate.document.version})`,
    '',
    workingDocumentMarkdown(debate),
    '',
    '## Round log',
    '',
    roundLogMarkdown(input),
    '',
  ].join('\n');
}
