import {
  createFormatters,
  createTranslator,
  type Locale,
  type LocaleFormatters,
  type Translator,
} from '@hal-ai/ui-panel/i18n';
import type { Context } from 'hono';
import { createContext, useContext } from 'hono/jsx';
import { type PanelRouteDeps, readPanelPrefs } from '../../ai/panel-routes.js';
import type { AppEnv } from '../../platform/http/env.js';

/** One page's language: its translator and its formatters (dates, numbers, sizes, durations). */
export interface PageText {
  locale: Locale;
  t: Translator;
  format: LocaleFormatters;
}

/** The page text for a language. */
export function pageTextFor(locale: Locale): PageText {
  return { locale, t: createTranslator(locale), format: createFormatters(locale) };
}

/**
 * The language a page is rendered in, handed down the JSX tree so every view reads it with
 * {@link usePageText} instead of taking it as a prop (hono/jsx renders a context synchronously).
 */
export const PageTextContext = createContext<PageText>(pageTextFor('ko'));

/** The current page's language (inside a {@link PageTextContext} provider). */
export function usePageText(): PageText {
  return useContext(PageTextContext);
}

const perRequest = new WeakMap<object, Promise<PageText>>();

/**
 * The signed-in operator's language (their `locale` preference, Korean by default), read once per request.
 */
export function operatorPageText(c: Context<AppEnv>, deps: Pick<PanelRouteDeps, 'db'>): Promise<PageText> {
  let text = perRequest.get(c.req.raw);
  if (!text) {
    text = readPanelPrefs(deps, c.get('operator').id).then((prefs) => pageTextFor(prefs.locale));
    perRequest.set(c.req.raw, text);
  }
  return text;
}

/** A state's word in the page's language (`running` → `실행 중`), or the state itself when it has none. */
export function stateText(t: Translator, state: string): string {
  const key = `state_${state}` as Parameters<Translator>[0];
  const text = t(key);
  return text === key ? state : text;
}
