/**
 * Addressing grammar of the unified room (documented in the README, "Addressing"):
 *
 * - `@name` anywhere: the LONGEST participant name right after `@`, compared case-insensitively
 *   (Unicode-aware, NFC). Names may contain spaces and any script. A name immediately followed by a
 *   letter, digit, combining mark or `_` is not a match (`@claudette` does not address `claude`).
 * - An `@` preceded by a letter, digit, `_`, `.`, `+` or `-` is part of a word (e-mail addresses
 *   such as `ops@example.com`) and is not an address.
 * - A leading `name:` / `name,` (also full-width `：` / `，`), optionally chained
 *   (`claude, gpt: compare`), addresses those participants. A leading word that names nobody is
 *   ordinary text.
 * - `@all`, `@everyone`, `@모두`, `@전체` address every active participant — unless a participant
 *   is literally called that, in which case the participant wins.
 * - Nothing inside inline code spans (`` `...` ``) or fenced code blocks (```` ``` ```` / `~~~`)
 *   is an address.
 * - An `@word` that matches no participant and no broadcast word is `unknown`.
 */

/** A participant as addressing sees it. */
export interface AddressingParticipant {
  id: string;
  name: string;
  active: boolean;
}

/** The result of {@link parseAddressing}. */
export interface Addressing {
  /** Addressed participant ids in order of first mention; empty means "everyone active". */
  targets: string[];
  /** `@words` that name no participant (the caller raises `unknown_addressee`). */
  unknown: string[];
  /** True when the text used a broadcast word such as `@all`; `targets` is then empty. */
  everyone: boolean;
}

/** Broadcast words (compared case-insensitively). */
export const BROADCAST_WORDS: readonly string[] = ['all', 'everyone', '모두', '전체'];

const wordChar = /[\p{L}\p{N}\p{M}_]/u;
const emailLocalChar = /[\p{L}\p{N}\p{M}_.+-]/u;
const unknownWord = /^[\p{L}\p{N}\p{M}_][\p{L}\p{N}\p{M}_.-]*/u;
const leadingSeparator = /^[ \t]*([:,：，])/u;

function fold(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/**
 * Replaces fenced code blocks and inline code spans with spaces of the same length, so that
 * offsets stay meaningful and nothing inside code can address anyone.
 */
export function maskCode(text: string): string {
  const blank = (part: string) => part.replace(/[^\n]/g, ' ');
  const lines = text.split('\n');
  let fence: { char: string; length: number } | undefined;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const marker = /^[ \t]{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      // A closing fence uses the same character, at least as long, and nothing else on the line.
      if (marker?.[1]?.[0] === fence.char && marker[1].length >= fence.length && line.trim() === marker[1]) {
        fence = undefined;
      }
      lines[index] = blank(line);
    } else if (marker?.[1]) {
      fence = { char: marker[1][0] ?? '`', length: marker[1].length };
      lines[index] = blank(line);
    }
  }
  // Inline spans: a run of N backticks closed by a run of exactly N backticks.
  return lines.join('\n').replace(/(?<!`)(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, blank);
}

interface NameEntry {
  participant: AddressingParticipant;
  folded: string;
}

function sortedNames(participants: readonly AddressingParticipant[]): NameEntry[] {
  return participants
    .filter((participant) => participant.name.trim().length > 0)
    .map((participant) => ({ participant, folded: fold(participant.name.trim()) }))
    .sort((a, b) => b.folded.length - a.folded.length);
}

/** Matches the longest participant name at `position`; returns it and the end offset. */
function matchName(
  text: string,
  folded: string,
  position: number,
  names: readonly NameEntry[],
): { participant: AddressingParticipant; end: number } | undefined {
  for (const entry of names) {
    if (!folded.startsWith(entry.folded, position)) continue;
    const end = position + entry.folded.length;
    const next = text.slice(end, end + 2);
    const nextChar = next ? String.fromCodePoint(next.codePointAt(0) ?? 32) : '';
    if (nextChar && wordChar.test(nextChar)) continue;
    return { participant: entry.participant, end };
  }
  return undefined;
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

/**
 * Parses who an operator message addresses in the unified room.
 *
 * @example
 * parseAddressing('@Claude Opus 로그 좀 봐줘', participants); // { targets: ['c1'], unknown: [], everyone: false }
 * parseAddressing('gpt: summarise', participants);           // { targets: ['g1'], ... }
 * parseAddressing('mail ops@example.com', participants);     // { targets: [], unknown: [], everyone: false }
 */
export function parseAddressing(text: string, participants: readonly AddressingParticipant[]): Addressing {
  const scanned = scanAddressing(text, participants);
  return { ...scanned, targets: scanned.everyone ? [] : scanned.targets };
}

function scanAddressing(text: string, participants: readonly AddressingParticipant[]): Addressing {
  // NFC first so that offsets of `text` and its folded copy agree for composed Hangul and accents.
  const source = maskCode(text.normalize('NFC'));
  // toLowerCase can change the length of a few characters (e.g. U+0130); fall back to a per-char fold then.
  let folded = fold(source);
  if (folded.length !== source.length)
    folded = Array.from(source, (char) => {
      const lower = char.toLowerCase();
      return lower.length === char.length ? lower : char;
    }).join('');
  const names = sortedNames(participants);
  const targets: string[] = [];
  const unknown: string[] = [];
  let everyone = false;

  // Leading `name:` / `name,` chain.
  let position = source.length - source.trimStart().length;
  for (;;) {
    const match = matchName(source, folded, position, names);
    if (!match) break;
    const separator = leadingSeparator.exec(source.slice(match.end));
    if (!separator) break;
    pushUnique(targets, match.participant.id);
    position = match.end + separator[0].length;
    position += source.slice(position).length - source.slice(position).trimStart().length;
    if (separator[1] === ':' || separator[1] === '：') break;
  }

  // `@name` anywhere.
  for (let index = source.indexOf('@'); index !== -1; index = source.indexOf('@', index + 1)) {
    const before = index > 0 ? source[index - 1] : '';
    if (before && emailLocalChar.test(before)) continue;
    const match = matchName(source, folded, index + 1, names);
    if (match) {
      pushUnique(targets, match.participant.id);
      index = match.end - 1;
      continue;
    }
    const word = unknownWord.exec(source.slice(index + 1))?.[0]?.replace(/[.-]+$/u, '');
    if (!word) continue;
    if (BROADCAST_WORDS.includes(fold(word))) everyone = true;
    else pushUnique(unknown, word);
  }

  return { targets, unknown, everyone };
}

/**
 * The participants a model's reply calls, for relay: the same grammar as {@link parseAddressing},
 * restricted to ACTIVE participants other than `selfId`. Unknown words and broadcast words
 * (`@all`) never relay — a model cannot fan a conversation out to everyone.
 */
export function extractMentions(
  replyText: string,
  participants: readonly AddressingParticipant[],
  selfId: string,
): string[] {
  const { targets } = scanAddressing(replyText, participants);
  const byId = new Map(participants.map((participant) => [participant.id, participant]));
  return targets.filter((id) => id !== selfId && byId.get(id)?.active === true);
}
