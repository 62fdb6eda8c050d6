import { describe, expect, it } from 'vitest';
import { createTranslator, MESSAGES, translate } from './i18n-catalogue.js';
import { createFormatters } from './i18n-format.js';
import { LOCALES, negotiateLocale, resolveLocale } from './i18n-locale.js';
import { CONSOLE_MESSAGES } from './messages-console.js';
import { CONSOLE_POLISH_MESSAGES } from './messages-console-polish.js';
import { PANEL_MESSAGES } from './messages-panel.js';

describe('the message catalogue', () => {
  it('gives every language the same keys, and no namespace shares a key with another', () => {
    const consoleKeys = Object.keys(CONSOLE_MESSAGES.ko);
    const panelKeys = Object.keys(PANEL_MESSAGES.ko);
    expect(Object.keys(CONSOLE_MESSAGES.en).sort()).toEqual([...consoleKeys].sort());
    expect(Object.keys(PANEL_MESSAGES.en).sort()).toEqual([...panelKeys].sort());
    const polishKeys = Object.keys(CONSOLE_POLISH_MESSAGES.ko);
    expect(Object.keys(CONSOLE_POLISH_MESSAGES.en).sort()).toEqual([...polishKeys].sort());
    expect(consoleKeys.filter((key) => panelKeys.includes(key))).toEqual([]);
    expect(polishKeys.filter((key) => consoleKeys.includes(key) || panelKeys.includes(key))).toEqual([]);
    expect(panelKeys.filter((key) => !key.startsWith('panel_'))).toEqual([]);
    for (const locale of LOCALES) {
      expect(Object.keys(MESSAGES[locale]).length).toBe(
        consoleKeys.length + panelKeys.length + polishKeys.length,
      );
    }
  });

  it('gives a message the same placeholders in every language', () => {
    const placeholders = (text: string) => [...text.matchAll(/\{([a-zA-Z0-9_]+)\}/g)].map((m) => m[1]).sort();
    const differing = Object.keys(MESSAGES.ko).filter((key) => {
      const korean = placeholders(MESSAGES.ko[key as keyof typeof MESSAGES.ko]);
      return LOCALES.some(
        (locale) =>
          JSON.stringify(placeholders(MESSAGES[locale][key as keyof typeof MESSAGES.ko])) !==
          JSON.stringify(korean),
      );
    });
    expect(differing).toEqual([]);
  });

  it('speaks one language at a time: no message carries both scripts joined by a middle dot', () => {
    // "Overview · 개요" was the old bilingual label; Hangul and Latin words around a `·` are that pattern.
    const bilingual = /[A-Za-z]{2,}[^·]*·[^·]*[가-힣]|[가-힣][^·]*·[^·]*[A-Za-z]{2,}/;
    for (const locale of LOCALES) {
      const offenders = Object.entries(MESSAGES[locale]).filter(([, text]) => bilingual.test(text));
      expect(offenders).toEqual([]);
    }
    // The Korean table is Korean: its messages that carry words contain Hangul unless they are names.
    const untranslated = Object.entries(MESSAGES.ko).filter(([key, text]) => {
      const words = text.replace(/\{[a-zA-Z0-9_]+\}/g, '');
      return /[a-z]{4,}/.test(words) && !/[가-힣]/.test(words) && key !== 'language_en';
    });
    expect(untranslated).toEqual([]);
  });

  it('fills placeholders and leaves a missing one visible', () => {
    expect(translate('en', 'audit_chain_ok', { count: 12 })).toBe('Hash chain verified: 12 entries intact');
    expect(translate('ko', 'audit_chain_ok', { count: 12 })).toBe('해시 체인 정상: 항목 12개 무결');
    expect(translate('en', 'overview_runner', { status: 'running' })).toBe(
      'Job runner: running, running {running}, queued {queued}',
    );
    const t = createTranslator('en');
    expect(t('nav_overview')).toBe('Overview');
    expect(createTranslator('ko')('nav_overview')).toBe('개요');
    // The panel reads the same catalogue: its keys carry the `panel_` prefix.
    expect(createTranslator('ko')('panel_unified')).toBe('통합');
    expect(t('panel_approve')).toBe('Approve');
  });
});

describe('choosing the language', () => {
  it('resolves a tag to a supported language, Korean otherwise', () => {
    expect(resolveLocale('en-GB')).toBe('en');
    expect(resolveLocale('EN')).toBe('en');
    expect(resolveLocale('ko-KR')).toBe('ko');
    expect(resolveLocale('fr')).toBe('ko');
    expect(resolveLocale(undefined)).toBe('ko');
  });

  it('reads Accept-Language by quality, in order, and falls back to Korean', () => {
    expect(negotiateLocale('en-US,en;q=0.9,ko;q=0.8')).toBe('en');
    expect(negotiateLocale('fr-FR, ko;q=0.5, en;q=0.4')).toBe('ko');
    expect(negotiateLocale('ko;q=0.2, en;q=0.9')).toBe('en');
    expect(negotiateLocale('de, fr;q=0.9')).toBe('ko');
    expect(negotiateLocale('en;q=0, ko;q=0.1')).toBe('ko');
    expect(negotiateLocale('*')).toBe('ko');
    expect(negotiateLocale('')).toBe('ko');
    expect(negotiateLocale(null)).toBe('ko');
  });
});

describe('formatting for the language', () => {
  const ko = createFormatters('ko', { timeZone: 'UTC' });
  const en = createFormatters('en', { timeZone: 'UTC' });

  it('writes durations with the largest units first', () => {
    expect(ko.duration(93_784)).toBe('1일 2시간 3분');
    expect(en.duration(93_784)).toBe('1d 2h 3m');
    expect(en.duration(86_405)).toBe('1d');
    expect(ko.duration(65)).toBe('1분 5초');
    expect(en.duration(0)).toBe('0s');
    expect(en.duration(null)).toBe('—');
    expect(en.duration(-3)).toBe('—');
  });

  it('writes dates on a 24-hour clock in the given zone', () => {
    const at = '2026-12-02T15:04:05.000Z';
    expect(en.dateTime(at)).toBe('12/02/2026, 15:04:05');
    expect(ko.dateTime(at)).toMatch(/^2026\. 12\. 02\. 15:04:05$/);
    expect(createFormatters('ko', { timeZone: 'Asia/Seoul' }).dateTime(at)).toContain('00:04:05');
    expect(en.date(at)).toBe('12/02/2026');
    expect(en.dateTime(null)).toBe('—');
    expect(en.dateTime('not a date')).toBe('—');
  });

  it('writes numbers, shares and sizes', () => {
    expect(en.number(12_345)).toBe('12,345');
    expect(en.percent(42.34)).toBe('42.3%');
    expect(en.percent(1, 4)).toBe('25.0%');
    expect(en.percent(1, 0)).toBe('—');
    expect(en.bytes(512)).toBe('512 B');
    expect(en.bytes(1536)).toBe('1.5 KiB');
    expect(ko.bytes(3 * 1024 ** 3)).toBe('3.0 GiB');
    expect(en.bytes(undefined)).toBe('—');
    // Never four digits before the unit: 1023 MiB and 999.99 KiB move up to the next unit.
    expect(en.bytes(1023 * 1024 ** 2)).toBe('1.0 GiB');
    expect(ko.bytes(1023 * 1024 ** 2)).toBe('1.0 GiB');
    expect(en.bytes(999 * 1024)).toBe('999.0 KiB');
    expect(en.bytes(1000 * 1024)).toBe('1.0 MiB');
    expect(en.bytes(1000)).toBe('1.0 KiB');
    expect(en.bytes(999)).toBe('999 B');
  });
});
