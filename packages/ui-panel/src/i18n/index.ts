/**
 * `@hal-ai/ui-panel/i18n`: HAL's one message catalogue, shared by the server-rendered console pages and the
 * browser panel. Browser-safe and server-safe: no DOM, no Node built-ins, only `Intl`.
 *
 * @example
 * import { createFormatters, createTranslator, negotiateLocale } from '@hal-ai/ui-panel/i18n';
 * const locale = negotiateLocale(request.headers.get('accept-language'));
 * const t = createTranslator(locale);
 * t('login_title'); // '로그인' or 'Sign in'
 * createFormatters(locale).duration(3_700); // '1시간 1분' or '1h 1m'
 */
export type {
  ConsoleMessageKey,
  MessageKey,
  MessageValues,
  PanelMessageKey,
  Translator,
} from './i18n-catalogue.js';
export {
  createTranslator,
  isMessageKey,
  MESSAGES,
  translate,
} from './i18n-catalogue.js';
export type { ErrorText } from './i18n-error-text.js';
export { errorText } from './i18n-error-text.js';
export type { FormatterSettings, LocaleFormatters } from './i18n-format.js';
export { createFormatters, MISSING } from './i18n-format.js';
export type { ImpactChange, ImpactFact, ImpactLines } from './i18n-impact.js';
export { impactLines } from './i18n-impact.js';
export type { IssueText, ValidationIssue } from './i18n-issue-text.js';
export { issueText, validationIssues } from './i18n-issue-text.js';
export type { Locale } from './i18n-locale.js';
export { DEFAULT_LOCALE, isLocale, LOCALES, negotiateLocale, resolveLocale } from './i18n-locale.js';
export { CONSOLE_MESSAGES } from './messages-console.js';
export type { ImpactSummaryCode } from './messages-console-impact.js';
export type { NoticeCode } from './messages-console-notices.js';
export { PANEL_MESSAGES } from './messages-panel.js';
