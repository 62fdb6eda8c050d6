import { isMessageKey, type MessageKey, type MessageValues, type Translator } from './i18n-catalogue.js';

/**
 * One issue of a `validation_failed` answer as the host sends it: `path` and `message` always (the message is
 * valibot's English, or a route's own), and valibot's machine fields where the host's schema check made it.
 */
export interface ValidationIssue {
  path: string;
  message: string;
  kind?: string;
  type?: string;
  expected?: string | null;
  received?: string | null;
  requirement?: number;
  inputType?: string;
}

/** One issue as a reader sees it: a sentence in their language and the server's own words for a bug report. */
export interface IssueText {
  /** The field's dot path as sent (`oauth.clientId`). */
  path: string;
  /** `{field}: {problem}` in the reader's language ("이름: 비워 둘 수 없습니다"). */
  text: string;
  /** `path: message` as the server wrote it (English). */
  raw: string;
}

/** The `issues` of an error answer (`{code, message, issues}`, or a page's error details), well-formed ones only. */
export function validationIssues(details: unknown): ValidationIssue[] {
  const issues = (details as { issues?: unknown } | null | undefined)?.issues;
  if (!Array.isArray(issues)) return [];
  return issues
    .filter((issue): issue is ValidationIssue => typeof issue?.message === 'string')
    .map((issue) => ({ ...issue, path: String(issue.path ?? '') }));
}

/** The check's numeric limit: `requirement`, or the number of `expected` (`>=3`) when that was all that came. */
function limitOf(issue: ValidationIssue): number | undefined {
  if (typeof issue.requirement === 'number') return issue.requirement;
  const match = /^[<>]?=?\s*(\d+(?:\.\d+)?)$/.exec(issue.expected ?? '');
  return match ? Number(match[1]) : undefined;
}

const SCHEMA_TYPES: Readonly<Record<string, MessageKey>> = {
  string: 'form_issue_type_string',
  number: 'form_issue_type_number',
  bigint: 'form_issue_type_number',
  boolean: 'form_issue_type_boolean',
  array: 'form_issue_type_list',
  tuple: 'form_issue_type_list',
  strict_tuple: 'form_issue_type_list',
  object: 'form_issue_type_object',
  strict_object: 'form_issue_type_object',
  loose_object: 'form_issue_type_object',
  record: 'form_issue_type_object',
  picklist: 'form_issue_choice',
  enum: 'form_issue_choice',
  literal: 'form_issue_choice',
  union: 'form_issue_choice',
  variant: 'form_issue_choice',
};

/** The sentence for one issue's problem, from its machine fields; `form_issue_invalid` when they say nothing. */
function problem(issue: ValidationIssue): [MessageKey, MessageValues?] {
  const type = issue.type ?? '';
  const limit = limitOf(issue);
  const items = issue.inputType === 'array';
  if ((type === 'strict_object' || type === 'strict_tuple') && issue.expected === 'never')
    return ['form_issue_unknown_field'];
  if (issue.kind === 'schema') {
    if (issue.received === 'undefined') return ['form_issue_missing'];
    return [SCHEMA_TYPES[type] ?? 'form_issue_invalid'];
  }
  if (issue.kind !== 'validation') return ['form_issue_invalid'];
  // An empty text fails whatever check it met first (a length, a pattern): say what the operator did.
  if (issue.received === '""' || type === 'non_empty') return ['form_issue_required'];
  if (type === 'min_length' && limit !== undefined) {
    if (items) return ['form_issue_min_items', { min: limit }];
    return limit === 1 ? ['form_issue_required'] : ['form_issue_min_length', { min: limit }];
  }
  if (type === 'max_length' && limit !== undefined)
    return items ? ['form_issue_max_items', { max: limit }] : ['form_issue_max_length', { max: limit }];
  if (type === 'length' && limit !== undefined && !items) return ['form_issue_length', { length: limit }];
  if (type === 'min_value' && limit !== undefined) return ['form_issue_min_value', { min: limit }];
  if (type === 'max_value' && limit !== undefined) return ['form_issue_max_value', { max: limit }];
  if (type === 'integer' || type === 'safe_integer') return ['form_issue_integer'];
  if (type === 'finite') return ['form_issue_type_number'];
  if (type === 'regex' || type === 'email' || type === 'hexadecimal') return ['form_issue_format'];
  if (type === 'url') return ['form_issue_url'];
  if (type.startsWith('iso_')) return ['form_issue_timestamp'];
  if (type === 'value' || type === 'values') return ['form_issue_choice'];
  return ['form_issue_invalid'];
}

/** The field's name in the reader's language (`form_field_<path>`), or its path where the catalogue has none. */
function fieldName(t: Translator, path: string): string {
  if (path === '') return t('form_field_input');
  const key = `form_field_${path
    .split('.')
    .filter((segment) => !/^\d+$/.test(segment))
    .join('_')
    .toLowerCase()}`;
  return isMessageKey(key) ? t(key) : path;
}

/**
 * What to show for one validation issue: "이름: 비워 둘 수 없습니다" from valibot's machine fields (kind, type,
 * requirement, what was received), never valibot's English as the sentence; an issue without them (a route's
 * own) reads as the generic "is not valid" of its field, and the English stays in `raw`.
 *
 * @example
 * issueText(createTranslator('ko'), { path: 'name', message: 'Invalid length: Expected >=1 but received 0',
 *   kind: 'validation', type: 'min_length', expected: '>=1', received: '0', requirement: 1, inputType: 'string' });
 * // { path: 'name', text: '이름: 비워 둘 수 없습니다', raw: 'name: Invalid length: Expected >=1 but received 0' }
 */
export function issueText(t: Translator, issue: ValidationIssue): IssueText {
  const [key, values] = problem(issue);
  return {
    path: issue.path,
    text: t('form_issue_line', { field: fieldName(t, issue.path), problem: t(key, values) }),
    raw: issue.path ? `${issue.path}: ${issue.message}` : issue.message,
  };
}
