/** The ellipsis hints use between the shown prefix and suffix. */
export const HINT_ELLIPSIS = '…';

/** Secrets shorter than this show no characters at all in a hint. */
const MIN_LENGTH_FOR_SUFFIX = 12;
const SUFFIX_LENGTH = 4;

// Vendor prefixes that name a token's kind, not its value. Only the first 3 characters are shown.
const KNOWN_PREFIXES = [
  'AIza',
  'ya29.',
  'ghp_',
  'gho_',
  'ghu_',
  'ghs_',
  'ghr_',
  'github_pat_',
  'glpat-',
  'xox',
];

function prefixOf(secret: string): string {
  // A short lowercase word and a dash (`sk-`, `or-`) is a type marker by convention.
  const dashed = /^[a-z]{2,3}-/.exec(secret);
  if (dashed) return dashed[0];
  if (KNOWN_PREFIXES.some((prefix) => secret.startsWith(prefix))) return secret.slice(0, 3);
  return '';
}

/**
 * A hint that lets an operator recognise a secret without revealing it: a known non-secret
 * prefix (up to the first `-`, or 3 characters of a known vendor prefix), an ellipsis and at most
 * the last 4 characters. Secrets under 12 characters show `…` only, and the shown characters
 * never exceed a third of the secret.
 *
 * @example
 * hintOf(apiKey); // e.g. "sk-…9f2c"
 */
export function hintOf(secret: string): string {
  const chars = Array.from(secret);
  if (chars.length < MIN_LENGTH_FOR_SUFFIX) return HINT_ELLIPSIS;
  const suffix = chars.slice(-SUFFIX_LENGTH).join('');
  const prefix = prefixOf(secret);
  const shown = Array.from(prefix).length + SUFFIX_LENGTH;
  return (shown * 3 <= chars.length ? prefix : '') + HINT_ELLIPSIS + suffix;
}
