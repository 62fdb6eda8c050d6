/** The languages HAL speaks, Korean first: the operators write Korean, English is a preference. */
export const LOCALES = ['ko', 'en'] as const;

/** One supported language (a BCP 47 primary tag). */
export type Locale = (typeof LOCALES)[number];

/** The language HAL speaks when nobody chose one. */
export const DEFAULT_LOCALE: Locale = 'ko';

/** Whether a value names a supported language exactly (`'ko'`, `'en'`). */
export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The supported language a tag asks for (`'en-GB'` → `'en'`), or the default for anything else.
 *
 * @example
 * resolveLocale('en-US'); // 'en'
 * resolveLocale('fr');    // 'ko'
 */
export function resolveLocale(tag: string | null | undefined): Locale {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0] ?? '';
  return isLocale(primary) ? primary : DEFAULT_LOCALE;
}

/**
 * The best supported language of an `Accept-Language` header (RFC 9110 §12.5.4: quality values, `*`),
 * or the default when it names none of ours. Used where no operator preference exists yet (the login page).
 *
 * @example
 * negotiateLocale('en-US,en;q=0.9,ko;q=0.8'); // 'en'
 * negotiateLocale('fr, ko;q=0.5');            // 'ko'
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE;
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...parameters] = part.trim().split(';');
      const quality = parameters
        .map((p) => p.trim())
        .find((p) => p.startsWith('q='))
        ?.slice(2);
      const q = quality === undefined ? 1 : Number(quality);
      return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => entry.tag !== '' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag === '*') return DEFAULT_LOCALE;
    const primary = tag.split('-')[0] ?? '';
    if (isLocale(primary)) return primary;
  }
  return DEFAULT_LOCALE;
}
