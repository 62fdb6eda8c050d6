import { type Locale, resolveLocale } from './i18n-locale.js';
import { CONSOLE_MESSAGES } from './messages-console.js';
import { CONSOLE_POLISH_MESSAGES } from './messages-console-polish.js';
import { PANEL_MESSAGES } from './messages-panel.js';

/** A key of the console pages' messages (`messages-console.ts`). */
export type ConsoleMessageKey = keyof (typeof CONSOLE_MESSAGES)['ko'];

/** A key of the panel's messages (`messages-panel.ts`). */
export type PanelMessageKey = keyof (typeof PANEL_MESSAGES)['ko'];

/** A key of the console-polish messages (`messages-console-polish.ts`). */
export type ConsolePolishMessageKey = keyof (typeof CONSOLE_POLISH_MESSAGES)['ko'];

/** Any key of HAL's one message catalogue: the console's and the panel's namespaces together. */
export type MessageKey = ConsoleMessageKey | PanelMessageKey | ConsolePolishMessageKey;

/** Values for a message's `{name}` placeholders. */
export type MessageValues = Readonly<Record<string, string | number>>;

/** Looks up one message in one language, filling its `{name}` placeholders. */
export type Translator = (key: MessageKey, values?: MessageValues) => string;

/**
 * The whole catalogue, one table per language. Each namespace file is checked at compile time to give every
 * language the same keys; the catalogue's own test checks that the namespaces never share a key, so merging
 * them here can never make one namespace's text replace the other's.
 */
export const MESSAGES: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = {
  ko: { ...CONSOLE_MESSAGES.ko, ...PANEL_MESSAGES.ko, ...CONSOLE_POLISH_MESSAGES.ko },
  en: { ...CONSOLE_MESSAGES.en, ...PANEL_MESSAGES.en, ...CONSOLE_POLISH_MESSAGES.en },
};

const PLACEHOLDER = /\{([a-zA-Z0-9_]+)\}/g;

/**
 * Whether a string is a key of the catalogue: for keys built at run time (`panel_note_<code>` of a stored note),
 * which may name a message this version does not have.
 *
 * @example
 * isMessageKey('panel_note_command_model'); // true
 * isMessageKey('panel_note_from_the_future'); // false
 */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(MESSAGES.ko, key);
}

/**
 * One message in one language. `{name}` placeholders take `values` (a missing value leaves the placeholder
 * visible rather than inventing text); an unknown language reads as the default one.
 *
 * @example
 * translate('en', 'nav_servers');                      // 'Servers'
 * translate('ko', 'audit_chain_ok', { count: 12 });     // '해시 체인 정상: 항목 12개 무결'
 */
export function translate(locale: Locale, key: MessageKey, values?: MessageValues): string {
  const table = MESSAGES[resolveLocale(locale)];
  const text = table[key] ?? key;
  if (!values) return text;
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

/**
 * A {@link Translator} bound to one language — what a page or the panel holds while it renders.
 *
 * @example
 * const t = createTranslator('en');
 * t('sign_out'); // 'Sign out'
 */
export function createTranslator(locale: Locale): Translator {
  return (key, values) => translate(locale, key, values);
}
