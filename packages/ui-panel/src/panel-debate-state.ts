/**
 * The debate view's pure decisions (SPEC §9, §14): which operator controls fit a debate's status, the token
 * meter's numbers, whether a live `debate` event means the round log must be read again, and how a round's input
 * separates the moderator's words from the operator's. No DOM here, so each rule has a plain unit test.
 */
import type { Debate, DebateDocumentVersion, DebateRound, DebateStatus } from '@hal-ai/spec';

/** One line of the working document's diff as `GET …/debates/:id` gives it. */
export interface DebateDiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** One Wiki.js page of a debate as `publishing.pages[]` of `GET …/debates/:id` shows it. */
export interface DebatePublishedPageView {
  page: string;
  path: string;
  /** Wiki.js's link to the page once created. */
  url: string | null;
  status: 'published' | 'failed';
  attempts: number;
  lastError: { code: string; message: string } | null;
  updatedAt: string;
}

/** Where a debate's Wiki.js pages stand (`publishing` of `GET …/debates/:id`). */
export interface DebatePublishingView {
  /** Whether a Wiki.js URL and API token are set on the settings page. */
  configured: boolean;
  pages: DebatePublishedPageView[];
  /** When HAL retries the failed pages by itself, if it will. */
  nextRetryAt: string | null;
}

/** `GET /ops/api/ai/debates/:id` → one debate with its round log, document versions and a diff. */
export interface DebateDetail {
  debate: Debate;
  rounds: DebateRound[];
  documents: DebateDocumentVersion[];
  diff: { from: number; to: number; lines: DebateDiffLine[] };
  /** The Wiki.js publish state (absent from a host that does not publish). */
  publishing?: DebatePublishingView;
}

/** The operator's controls of a debate (SPEC §9). */
export type DebateControl = 'inject' | 'redirect' | 'answer' | 'pause' | 'resume' | 'stop';

/** Every control, in the order the view shows them. */
export const DEBATE_CONTROLS: readonly DebateControl[] = [
  'inject',
  'redirect',
  'answer',
  'pause',
  'resume',
  'stop',
];

/** Controls that carry the operator's words (the others take none). */
export const DEBATE_WORD_CONTROLS: readonly DebateControl[] = ['inject', 'redirect', 'answer'];

/** A debate that is not over takes words and can be stopped (the engine's `OPEN` statuses). */
const OPEN: readonly DebateStatus[] = ['running', 'paused', 'waiting_operator'];

/**
 * Which controls fit a status — the same rules the server enforces with `409 debate_not_running`, so the view
 * offers only what the server would take (a stale view still gets the server's refusal, shown as such).
 *
 * @example
 * enabledControls('waiting_operator').answer; // true
 * enabledControls('concluded').stop;          // false
 */
export function enabledControls(status: DebateStatus): Record<DebateControl, boolean> {
  const open = OPEN.includes(status);
  return {
    inject: open,
    redirect: open,
    answer: status === 'waiting_operator',
    pause: status === 'running',
    resume: status === 'paused',
    stop: open,
  };
}

/** The token meter: what the providers reported against the debate room's budget. */
export interface TokenMeter {
  used: number;
  budget: number;
  /** `used / budget`, clamped to 0…1 (0 for a budget of 0). */
  share: number;
  /** `spent` once the budget is reached, `high` from 80 %. */
  level: 'normal' | 'high' | 'spent';
}

/**
 * The token meter of a debate.
 *
 * @example
 * tokenMeter({ tokensUsed: 170_000, tokenBudget: 200_000 }); // { used: 170000, budget: 200000, share: 0.85, level: 'high' }
 */
export function tokenMeter(debate: Pick<Debate, 'tokensUsed' | 'tokenBudget'>): TokenMeter {
  const used = Math.max(0, debate.tokensUsed);
  const budget = Math.max(0, debate.tokenBudget);
  const share = budget > 0 ? Math.min(1, used / budget) : 0;
  const level = budget > 0 && used >= budget ? 'spent' : share >= 0.8 ? 'high' : 'normal';
  return { used, budget, share, level };
}

/**
 * Whether a live `debate` event changed what only `GET …/debates/:id` can tell (a new round, a new document
 * version): then the view reads the debate again. Status, tokens and the verdict come with the event itself.
 */
export function needsReload(known: DebateDetail | undefined, live: Debate): boolean {
  if (!known || known.debate.id !== live.id) return true;
  return known.rounds.length !== live.round || known.debate.document.version !== live.document.version;
}

/** A piece of a round's input: the moderator's words, or words the operator added (quoted as theirs). */
export interface RoundInputPart {
  by: 'moderator' | 'operator';
  /** For the operator: the name HAL quoted them under. */
  operator?: string;
  text: string;
}

const OPERATOR_LINE = /^The operator \((.+?)\) (?:added|answered), in their own words:$/;

/**
 * Splits a round's input into the moderator's text and the operator's quoted words (HAL appends them as
 * "The operator (name) added, in their own words:" followed by `> ` lines), so the view can show the operator's
 * words as the operator's and never as a model's.
 *
 * @example
 * splitRoundInput('Argue.\n\nThe operator (admin) added, in their own words:\n> Mind the cost.');
 * // [{ by: 'moderator', text: 'Argue.' }, { by: 'operator', operator: 'admin', text: 'Mind the cost.' }]
 */
export function splitRoundInput(input: string): RoundInputPart[] {
  const parts: RoundInputPart[] = [];
  let moderator: string[] = [];
  let quote: { operator: string; lines: string[] } | null = null;
  const flushModerator = () => {
    const text = moderator.join('\n').trim();
    if (text) parts.push({ by: 'moderator', text });
    moderator = [];
  };
  const flushQuote = () => {
    if (quote) parts.push({ by: 'operator', operator: quote.operator, text: quote.lines.join('\n') });
    quote = null;
  };
  for (const line of input.split('\n')) {
    const header = OPERATOR_LINE.exec(line.trim());
    if (header) {
      flushModerator();
      flushQuote();
      quote = { operator: header[1] ?? '', lines: [] };
      continue;
    }
    if (quote && (line.startsWith('> ') || line === '>')) {
      quote.lines.push(line.slice(2));
      continue;
    }
    flushQuote();
    moderator.push(line);
  }
  flushQuote();
  flushModerator();
  return parts;
}

/** The versions a diff can be asked between: every stored version, newest first. */
export function diffChoices(documents: readonly DebateDocumentVersion[]): number[] {
  return documents.map((document) => document.version).sort((a, b) => b - a);
}
