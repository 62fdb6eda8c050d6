import { isMessageKey, type MessageValues, type Translator } from './i18n-catalogue.js';
import type { LocaleFormatters } from './i18n-format.js';

/** A translator that also says numbers in its language (`1,234` / `1.234`); plain `String` when none is given. */
type Reader = Translator & { number(value: number): string };

/*
 * The one reading of an impact (issue #16 point 6): what HAL computed an action will change, as the proposal card,
 * the panel's three-step dialog and the console's three-step page all show it. Pure (no DOM, no JSX): the panel
 * renders these lines as DOM nodes, the console pages as JSX, so the three views cannot tell different stories.
 *
 * An impact is a record: `summary` (English, what models read) with `summaryCode` + `summaryParams` (the
 * catalogue sentence in the reader's language), `change` (what changes, before → after), and further facts.
 * A key `<name>Code` beside `<name>` names the catalogue word `<name>` stands for (`serverCode`, `toCode`,
 * `noteCode`), so English data a model reads never reaches a Korean screen.
 */

/** One line of what changes: `label: from → to`, or `label: to` for a value that is only set (`from` null). */
export interface ImpactChange {
  /** The stable field name (`state`, a setting's key, a module), for scripts and tests. */
  field: string;
  label: string;
  from: string | null;
  to: string;
}

/** One further fact: a text, a nested list of facts (a record), or change lines (a list of differences). */
export interface ImpactFact {
  key: string;
  label: string;
  text?: string;
  facts?: ImpactFact[];
  changes?: ImpactChange[];
}

/** An impact as its readers show it, in one language. */
export interface ImpactLines {
  summary: string | null;
  changes: ImpactChange[];
  facts: ImpactFact[];
  /** The impact as HAL answered it, pretty-printed: one click away, never the main view. */
  raw: string;
}

/** Values shown as the state's word (`state_<value>`) where the catalogue has one. */
const STATE_FIELDS = new Set(['state', 'severity', 'lastVerified']);
/** Keys the summary and the change list show, not the list of facts. */
const SUMMARY_KEYS = new Set(['summary', 'summaryCode', 'summaryParams', 'change']);
/** What a flat change (`{module, from, to}`, `{key, from, to}`) names its field by. */
const STEP_KEYS = new Set(['from', 'to', 'key', 'module']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStep(value: unknown): value is Record<string, unknown> & { from?: unknown; to?: unknown } {
  return isRecord(value) && ('from' in value || 'to' in value);
}

/** The catalogue word a known code names, else `null`. */
function word(t: Reader, code: unknown): string | null {
  return typeof code === 'string' && code.startsWith('impact_') && isMessageKey(code) ? t(code) : null;
}

/** A field's label in the reader's language (`impact_field_<key>`), else the key itself. */
function label(t: Reader, key: string): string {
  return word(t, `impact_field_${key}`) ?? key;
}

/** A value as the reader reads it: a state's word, yes/no, a list joined, a record as one line of JSON. */
function valueText(t: Reader, key: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return t(value ? 'impact_value_yes' : 'impact_value_no');
  if (typeof value === 'string' && STATE_FIELDS.has(key)) {
    const state = `state_${value}`;
    return isMessageKey(state) ? t(state) : value;
  }
  if (typeof value === 'number') return t.number(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => !isRecord(item) && !Array.isArray(item)))
    return value.map((item) => valueText(t, key, item)).join(', ');
  return JSON.stringify(value);
}

/** The value of `record[key]`, or the catalogue word its `<key>Code` sibling names. */
function coded(t: Reader, record: Record<string, unknown>, key: string): string {
  return word(t, record[`${key}Code`]) ?? valueText(t, key, record[key]);
}

/** Whether `key` is a `<name>Code` that names the word of a sibling `<name>`. */
function isCodeOf(record: Record<string, unknown>, key: string): boolean {
  return key.endsWith('Code') && key.length > 4 && Object.hasOwn(record, key.slice(0, -4));
}

/** The summary in the reader's language, from its code; the English `summary` when the code is unknown. */
function summaryText(t: Reader, impact: Record<string, unknown>): string | null {
  const code = impact.summaryCode;
  if (typeof code === 'string' && code.startsWith('impact_') && isMessageKey(code)) {
    const params = isRecord(impact.summaryParams) ? impact.summaryParams : {};
    const values: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(params)) {
      values[name] = valueText(t, name, value);
    }
    return t(code, values as MessageValues);
  }
  return typeof impact.summary === 'string' ? impact.summary : null;
}

/** The change lines of one `change` record (per-field steps, or one flat step with its extra facts). */
function changeLines(t: Reader, change: unknown): ImpactChange[] {
  if (!isRecord(change)) return [];
  if (isStep(change)) {
    // `{module, from, to}` (a version) or `{key, from, to}` (a setting): one step named by what it changes.
    const field =
      typeof change.key === 'string'
        ? change.key
        : typeof change.module === 'string'
          ? change.module
          : 'value';
    const stepLabel =
      typeof change.key === 'string'
        ? change.key
        : typeof change.module === 'string'
          ? `${label(t, 'version')} (${change.module})`
          : label(t, 'value');
    const lines: ImpactChange[] = [
      { field, label: stepLabel, from: coded(t, change, 'from'), to: coded(t, change, 'to') },
    ];
    for (const [key, value] of Object.entries(change)) {
      if (STEP_KEYS.has(key) || isCodeOf(change, key) || value === undefined) continue;
      lines.push({ field: key, label: label(t, key), from: null, to: coded(t, change, key) });
    }
    return lines;
  }
  return Object.entries(change).flatMap(([key, value]): ImpactChange[] => {
    if (value === undefined || isCodeOf(change, key)) return [];
    if (isStep(value)) {
      const from = value.from === null || value.from === undefined ? '—' : valueText(t, key, value.from);
      return [{ field: key, label: label(t, key), from, to: valueText(t, key, value.to) }];
    }
    return [{ field: key, label: label(t, key), from: null, to: coded(t, change, key) }];
  });
}

/** The facts of a record: nested records one level deep, lists of differences as change lines. */
function factsOf(t: Reader, record: Record<string, unknown>, skip: Set<string>, depth: number): ImpactFact[] {
  const facts: ImpactFact[] = [];
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined || skip.has(key) || isCodeOf(record, key)) continue;
    const fact: ImpactFact = { key, label: label(t, key) };
    if (isRecord(value) && depth === 0 && Object.keys(value).length > 0) {
      fact.facts = factsOf(t, value, new Set(), depth + 1);
    } else if (Array.isArray(value) && value.length > 0 && value.every(isStep)) {
      fact.changes = value.map((item) => {
        const step = item as Record<string, unknown>;
        const named = [step.serverId, step.module].filter((part) => typeof part === 'string').join(' ');
        return {
          field: named || key,
          label: named || label(t, key),
          from: valueText(t, 'version', step.from),
          to: valueText(t, 'version', step.to),
        };
      });
    } else if (Array.isArray(value) && value.length === 0) {
      fact.text = '—';
    } else {
      fact.text = coded(t, record, key);
    }
    facts.push(fact);
  }
  return facts;
}

/**
 * Reads an impact in the reader's language: the summary from its code, the change lines, the other facts, and
 * the raw JSON. A plain sentence (an older or foreign impact) is its own summary.
 *
 * @example
 * const lines = impactLines(createTranslator('ko'), impact, createFormatters('ko'));
 * lines.summary;    // 'web-1 서버를 격리합니다: …'
 * lines.changes[0]; // { field: 'state', label: '상태', from: '활성', to: '격리됨' }
 */
export function impactLines(
  translate: Translator,
  impact: unknown,
  format?: Pick<LocaleFormatters, 'number'>,
): ImpactLines {
  const t: Reader = Object.assign(
    (key: Parameters<Translator>[0], values?: MessageValues) => translate(key, values),
    {
      number: (value: number) => (format ? format.number(value) : String(value)),
    },
  );
  if (!isRecord(impact)) {
    const summary = typeof impact === 'string' ? impact : null;
    return { summary, changes: [], facts: [], raw: JSON.stringify(impact ?? null, null, 2) };
  }
  return {
    summary: summaryText(t, impact),
    changes: changeLines(t, impact.change),
    facts: factsOf(t, impact, SUMMARY_KEYS, 0),
    raw: JSON.stringify(impact, null, 2),
  };
}
