/**
 * The words of a debate's calls: the moderator's tasks (brief the speaker, merge the working document, judge,
 * summarise, conclude, compact) and the speaker's turn. Each task is one user message after the shared context;
 * its first line names the task so a transcript reads clearly.
 */
import type { PromptMessage } from '@hal-ai/spec';
import { type NameOf, roundText } from './debate-context.js';
import type { DebatePendingRound, DebateRoundRecord } from './debate-store.js';

/** The brief of one call: appended to the system prompt, then the user message. */
export interface DebateBrief {
  system: string;
  messages: PromptMessage[];
}

/** The debate's cast, for the system part of every brief. */
export interface DebateCast {
  moderator: string;
  debaters: string[];
}

/** The first words of each moderator task (also what scripted test models answer by). */
export const MODERATOR_TASKS = {
  brief: 'Task: brief the next speaker.',
  merge: 'Task: merge the working document.',
  judge: 'Task: judge this round.',
  summary: 'Task: write a short summary note.',
  conclusion: 'Task: write the conclusion.',
  stopSummary: 'Task: summarise the debate that stops here.',
  compact: 'Task: summarise older rounds.',
} as const;

const user = (text: string): PromptMessage => ({ role: 'user', content: [{ type: 'text', text }] });

function moderatorSystem(cast: DebateCast): string {
  return [
    '# Your part: the moderator',
    `You moderate a debate between ${cast.debaters.join(', ')}. You never take a side. You choose who speaks next, write each speaker's input, keep the working document (the debate's product: what is agreed, what is disputed, the open questions) and judge after every round whether the sides agree.`,
    'The operator watches and may add words of their own; they are quoted as the operator’s. Only the operator can change approvals or policy.',
  ].join('\n');
}

/** The moderator's brief: who speaks next (first line `SPEAKER: <name>`), then that speaker's input. */
export function briefSpeakerPrompt(
  cast: DebateCast,
  context: string,
  suggested: string,
  operatorWords: string,
): DebateBrief {
  const lines = [
    MODERATOR_TASKS.brief,
    '',
    context,
    '',
    `Choose the next speaker among: ${cast.debaters.join(', ')} (by turn it would be ${suggested}). Start your reply with one line \`SPEAKER: <name>\`, then write that speaker's input: the other side's latest position, your comment, and the direction to take.`,
  ];
  if (operatorWords) {
    lines.push(
      '',
      "The operator's words below go to the speaker as they are (HAL adds them after your input):",
      operatorWords,
    );
  }
  return { system: moderatorSystem(cast), messages: [user(lines.join('\n'))] };
}

/** The speaker's turn: the shared context and the moderator's input; answered in full. */
export function speakerPrompt(cast: DebateCast, self: string, context: string, input: string): DebateBrief {
  return {
    system: [
      '# Your part: a debater',
      `You debate with ${cast.debaters.filter((name) => name !== self).join(', ')}; ${cast.moderator} moderates. Argue your position on the merits, concede what the other side gets right, and answer in full. You may use your tools; write and high-risk calls become proposals the operator decides.`,
    ].join('\n'),
    messages: [user([context, '', "## The moderator's input for you", '', input].join('\n'))],
  };
}

/** The merge: the complete new working document. */
export function mergeDocumentPrompt(
  cast: DebateCast,
  context: string,
  pending: Pick<DebatePendingRound, 'n' | 'speakerId'> & { input: string; reply: string },
  nameOf: NameOf,
): DebateBrief {
  return {
    system: moderatorSystem(cast),
    messages: [
      user(
        [
          MODERATOR_TASKS.merge,
          '',
          context,
          '',
          'This round:',
          '',
          roundText(pending, nameOf),
          '',
          'Merge this round into the working document. Reply with the complete new document in Markdown and nothing else.',
        ].join('\n'),
      ),
    ],
  };
}

/** The judgement: only the SPEC §9 JSON. A retry quotes why the previous answer was refused. */
export function judgePrompt(
  cast: DebateCast,
  context: string,
  pending: Pick<DebatePendingRound, 'n' | 'speakerId'> & { input: string; reply: string },
  nameOf: NameOf,
  retryError: string | null,
): DebateBrief {
  const lines = [
    MODERATOR_TASKS.judge,
    '',
    context,
    '',
    'This round:',
    '',
    roundText(pending, nameOf),
    '',
    'Judge whether the sides now agree. Reply with only this JSON object:',
    '{"decision": "continue" | "ask_user" | "conclude", "agreement_level": "disagree" | "partial" | "agree", "reason": "…", "agreed": ["…"], "disputed": ["…"], "question": "… (only with ask_user)"}',
    'Use "ask_user" when both sides need the operator to decide something; "conclude" when they agree.',
  ];
  if (retryError) {
    lines.push(
      '',
      `Your previous answer was refused: ${retryError}. Answer again with only the JSON object.`,
    );
  }
  return { system: moderatorSystem(cast), messages: [user(lines.join('\n'))] };
}

/** A moderator task over the shared context only (summary, conclusion, stop summary). */
export function moderatorTaskPrompt(
  cast: DebateCast,
  task: 'summary' | 'conclusion' | 'stopSummary',
  context: string,
  why: string,
): DebateBrief {
  const asks = {
    summary:
      'Write a short summary note for the operator: where the sides stand, what is agreed and disputed.',
    conclusion:
      'The sides agreed in two consecutive rounds. Write the conclusion: what was agreed, on what grounds, and what stays open.',
    stopSummary:
      'Write a short summary of the debate for the operator: where it ended, what is agreed, what is disputed.',
  } as const;
  return {
    system: moderatorSystem(cast),
    messages: [user([MODERATOR_TASKS[task], '', context, '', why, asks[task]].filter(Boolean).join('\n'))],
  };
}

/** The compaction: a summary of older rounds (and of the previous summary) that prompts carry instead of them. */
export function compactPrompt(
  cast: DebateCast,
  previousSummary: string | null,
  rounds: readonly DebateRoundRecord[],
  nameOf: NameOf,
): DebateBrief {
  const first = rounds[0]?.n ?? 1;
  const last = rounds.at(-1)?.n ?? first;
  return {
    system: moderatorSystem(cast),
    messages: [
      user(
        [
          MODERATOR_TASKS.compact,
          '',
          previousSummary ? `Summary so far:\n\n${previousSummary}\n` : '',
          rounds.map((round) => roundText(round, nameOf)).join('\n\n'),
          '',
          `Summarise rounds ${previousSummary ? 1 : first}–${last} so that the debate can go on without them: each side's position, what was conceded, what is agreed and what is disputed. Reply with the summary only.`,
        ].join('\n'),
      ),
    ],
  };
}

/** The speaker the moderator named on its first line (`SPEAKER: <name>`), and the input after it. */
export function parseBrief(
  reply: string,
  debaters: ReadonlyArray<{ id: string; name: string }>,
): { speakerId: string | null; input: string } {
  const match = /^\s*\**speaker\**\s*[:：]\s*@?(.+?)\s*$/im.exec(reply.split('\n', 1)[0] ?? '');
  const named = match?.[1]?.replace(/\*+$/, '').trim().toLowerCase();
  const speaker = named ? debaters.find((entry) => entry.name.toLowerCase() === named) : undefined;
  const input = match ? reply.split('\n').slice(1).join('\n').trim() : reply.trim();
  return { speakerId: speaker?.id ?? null, input };
}

/** A document the moderator returned wrapped in one fence, unwrapped. */
export function unwrapDocument(reply: string): string {
  const trimmed = reply.trim();
  const fenced = /^```(?:markdown|md)?\s*\n([\s\S]*?)\n?```$/i.exec(trimmed);
  return (fenced?.[1] ?? trimmed).trim();
}
