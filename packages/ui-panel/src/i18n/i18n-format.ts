import type { Locale } from './i18n-locale.js';

/** What a formatter prints for a value that is missing or not a finite number. */
export const MISSING = '—';

/** Settings of {@link createFormatters}. */
export interface FormatterSettings {
  /**
   * The IANA time zone dates are shown in (default: the runtime's own — the server's for pages, the
   * browser's for the panel). Tests pass `'UTC'` so their expectations do not depend on the machine.
   */
  timeZone?: string | undefined;
}

/** Dates, numbers, sizes and durations written for one language. */
export interface LocaleFormatters {
  /** The language these formatters write. */
  readonly locale: Locale;
  /** A date and time to the second (`2026. 12. 02. 09:05:07` / `12/02/2026, 09:05:07`), 24-hour clock. */
  dateTime(value: string | number | Date | null | undefined): string;
  /** A date alone. */
  date(value: string | number | Date | null | undefined): string;
  /** A number with the language's grouping (`12,345.6`). */
  number(value: number | null | undefined, options?: Intl.NumberFormatOptions): string;
  /** A share of a whole as a percentage with one decimal (`42.3%`). */
  percent(part: number | null | undefined, whole?: number): string;
  /** A size in binary units with one decimal (`1.5 GiB`). */
  bytes(bytes: number | null | undefined): string;
  /** A duration from seconds, at most the three largest units (`3일 4시간 5분` / `3d 4h 5m`). */
  duration(seconds: number | null | undefined): string;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;
const DURATION_UNITS = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
] as const;

function toDate(value: string | number | Date | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function finite(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Formatters for one language, built on `Intl` (created once per call, so a page builds them once and
 * reuses them for every row).
 *
 * @example
 * const f = createFormatters('ko', { timeZone: 'UTC' });
 * f.duration(93_784); // '1일 2시간 3분'
 * f.bytes(1536);      // '1.5 KiB'
 */
export function createFormatters(locale: Locale, settings: FormatterSettings = {}): LocaleFormatters {
  const zone = settings.timeZone ? { timeZone: settings.timeZone } : {};
  const dateTimeFormat = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    ...zone,
  });
  const dateFormat = new Intl.DateTimeFormat(locale, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...zone,
  });
  const oneDecimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, minimumFractionDigits: 1 });
  const whole = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const percentFormat = new Intl.NumberFormat(locale, {
    style: 'percent',
    maximumFractionDigits: 1,
    minimumFractionDigits: 1,
  });
  const unitFormats = DURATION_UNITS.map(
    ([unit, size]) =>
      [new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'narrow' }), size] as const,
  );
  return {
    locale,
    dateTime: (value) => {
      const date = toDate(value);
      return date ? dateTimeFormat.format(date) : MISSING;
    },
    date: (value) => {
      const date = toDate(value);
      return date ? dateFormat.format(date) : MISSING;
    },
    number: (value, options) => {
      if (!finite(value)) return MISSING;
      return options ? new Intl.NumberFormat(locale, options).format(value) : whole.format(value);
    },
    percent: (part, total = 100) => {
      if (!finite(part) || !finite(total) || total <= 0) return MISSING;
      return percentFormat.format(part / total);
    },
    bytes: (bytes) => {
      if (!finite(bytes) || bytes < 0) return MISSING;
      let value = bytes;
      let unit = 0;
      // Move up a unit from 1000 on, not 1024: `1,023.0 MiB` is four digits and a separator where
      // `1.0 GiB` reads at a glance, and a value that rounds to 1000 never shows as `1,000.0`.
      while (value >= 1000 && unit < BYTE_UNITS.length - 1) {
        value /= 1024;
        unit += 1;
      }
      return `${unit === 0 ? whole.format(value) : oneDecimal.format(value)} ${BYTE_UNITS[unit]}`;
    },
    duration: (seconds) => {
      if (!finite(seconds) || seconds < 0) return MISSING;
      // The largest unit that is not zero, and the two below it (zeros left out): `1일 5초` would read as
      // precise when the minutes between them are dropped, so a day and seconds never stand together.
      let rest = Math.floor(seconds);
      const amounts = unitFormats.map(([format, size]) => {
        const amount = Math.floor(rest / size);
        rest -= amount * size;
        return [format, amount] as const;
      });
      const first = amounts.findIndex(([, amount]) => amount > 0);
      if (first === -1) return unitFormats[unitFormats.length - 1]?.[0].format(0) ?? MISSING;
      return amounts
        .slice(first, first + 3)
        .filter(([, amount]) => amount > 0)
        .map(([format, amount]) => format.format(amount))
        .join(' ');
    },
  };
}
