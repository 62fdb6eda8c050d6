/**
 * What every debate call carries (SPEC §9 "Context"): the topic, the working document and the recent rounds in full;
 * rounds before `compactedThrough` appear only as the moderator's summary. Compaction is decided here: once the
 * context would pass a share of the smallest context window among the debate's models, the oldest rounds not yet
 * summarised (all but the most recent few) are handed to the moderator to summarise. The stored log is never cut.
 */
import type { DebateDocumentVersion } from '@hal-ai/spec';
import type { DebateOperatorNote, DebateRecord, DebateRoundRecord } from './debate-store.js';

/**
 * A rough token count of a prompt text. Providers count differently and report only afterwards, so this stays on
 * the safe side: one token per three characters (Korean text runs close to one token per character pair or less).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3);
}

/** Names of connections, for prompts and exports. */
export type NameOf = (connectionId: string) => string;

/** One round as prompts and exports show it. */
export function roundText(
  round: Pick<DebateRoundRecord, 'n' | 'speakerId' | 'input' | 'reply'>,
  nameOf: NameOf,
) {
  return [
    `### Round ${round.n} — ${nameOf(round.speakerId)}`,
    '',
    "**The moderator's input:**",
    '',
    round.input,
    '',
    `**${nameOf(round.speakerId)}'s answer:**`,
    '',
    round.reply,
  ].join('\n');
}

/** The debate's shared context: topic, direction, working document, summary of older rounds, recent rounds. */
export function debateContextText(
  debate: Pick<DebateRecord, 'topic' | 'direction' | 'document' | 'compactedSummary' | 'compactedThrough'>,
  rounds: readonly DebateRoundRecord[],
  nameOf: NameOf,
): string {
  const recent = rounds.filter((round) => round.n > debate.compactedThrough);
  const sections = [`## Topic\n\n${debate.topic}`];
  if (debate.direction) sections.push(`## Direction from the operator\n\n${debate.direction}`);
  sections.push(
    `## Working document (version ${debate.document.version})\n\n${debate.document.text.trim() || '(empty so far)'}`,
  );
  if (debate.compactedSummary) {
    sections.push(
      `## Summary of rounds 1–${debate.compactedThrough} (written by the moderator)\n\n${debate.compactedSummary}`,
    );
  }
  if (recent.length > 0) {
    sections.push(`## Rounds\n\n${recent.map((round) => roundText(round, nameOf)).join('\n\n')}`);
  }
  return sections.join('\n\n');
}

/** Operator words, quoted as the operator's (never as a model's). */
export function operatorNotesText(notes: readonly DebateOperatorNote[]): string {
  return notes
    .map((note) => {
      const label = note.kind === 'answer' ? 'answered' : 'added';
      const quoted = note.text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
      return `The operator (${note.by}) ${label}, in their own words:\n${quoted}`;
    })
    .join('\n\n');
}

/** Settings of {@link roundsToCompact}. */
export interface CompactionInput {
  /** The context as it would be sent now. */
  contextText: string;
  rounds: readonly DebateRoundRecord[];
  compactedThrough: number;
  /** The smallest context window (tokens) among the models the next calls go to. */
  contextWindow: number;
  /** The share of that window the context may fill (0–1). */
  share: number;
  /** Rounds always kept in full. */
  keepRecent: number;
}

/**
 * The last round number to summarise now, or null when the context fits (or nothing is left to summarise: the
 * recent rounds stay in full whatever their size).
 */
export function roundsToCompact(input: CompactionInput): number | null {
  if (estimateTokens(input.contextText) <= input.contextWindow * input.share) return null;
  const candidates = input.rounds.filter((round) => round.n > input.compactedThrough);
  const through = candidates.length - input.keepRecent;
  if (through <= 0) return null;
  return candidates[through - 1]?.n ?? null;
}

/** The working document's change between two versions, as lines kept, removed and added. */
export type DocumentDiffLine = { kind: 'same' | 'removed' | 'added'; text: string };

/**
 * A line diff (longest common subsequence) between two document versions. Documents are a few hundred lines at
 * most, so the quadratic table stays small.
 */
export function diffDocumentVersions(
  before: Pick<DebateDocumentVersion, 'text'>,
  after: Pick<DebateDocumentVersion, 'text'>,
): DocumentDiffLine[] {
  const a = before.text.split('\n');
  const b = after.text.split('\n');
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const row = table[i] as number[];
      row[j] =
        a[i] === b[j]
          ? ((table[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((table[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const lines: DocumentDiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ kind: 'same', text: a[i] as string });
      i += 1;
      j += 1;
    } else if (((table[i + 1] as number[])[j] as number) >= ((table[i] as number[])[j + 1] as number)) {
      lines.push({ kind: 'removed', text: a[i] as string });
      i += 1;
    } else {
      lines.push({ kind: 'added', text: b[j] as string });
      j += 1;
    }
  }
  for (; i < a.length; i += 1) lines.push({ kind: 'removed', text: a[i] as string });
  for (; j < b.length; j += 1) lines.push({ kind: 'added', text: b[j] as string });
  return lines;
}
