import { describe, expect, it } from 'vitest';
import { createTranslator } from './i18n-catalogue.js';
import { issueText, type ValidationIssue, validationIssues } from './i18n-issue-text.js';

// Issues exactly as the host's `parseInput` sends them (valibot 1.x machine fields); the host's own test checks
// that a real schema produces these fields.
const issue = (fields: Partial<ValidationIssue> & { path: string; message: string }): ValidationIssue => ({
  kind: 'validation',
  inputType: 'string',
  expected: null,
  received: null,
  ...fields,
});

const cases: Array<[ValidationIssue, string, string]> = [
  [
    issue({
      path: 'name',
      message: 'Invalid length: Expected >=1 but received 0',
      type: 'min_length',
      expected: '>=1',
      received: '0',
      requirement: 1,
    }),
    '이름: 비워 둘 수 없습니다',
    'Name: must not be empty',
  ],
  [
    issue({
      path: 'username',
      message: 'Invalid length: Expected <=1024 but received 1025',
      type: 'max_length',
      expected: '<=1024',
      received: '1025',
      requirement: 1024,
    }),
    '사용자 이름: 1024자 이하여야 합니다',
    'Username: must be at most 1024 characters',
  ],
  [
    issue({
      path: 'reason',
      message: 'Invalid length: Expected >=3 but received 1',
      type: 'min_length',
      expected: '>=3',
      received: '1',
    }),
    '사유: 3자 이상이어야 합니다',
    'Reason: must be at least 3 characters',
  ],
  [
    issue({
      path: 'tools.enabled',
      message: 'Invalid length: Expected <=200 but received 201',
      type: 'max_length',
      expected: '<=200',
      received: '201',
      requirement: 200,
      inputType: 'array',
    }),
    '쓸 도구: 200개 이하여야 합니다',
    'Tools: may have at most 200 items',
  ],
  [
    issue({
      path: 'name',
      message: 'use 1–40 letters, digits, _ . - and single spaces between words',
      type: 'regex',
      expected: '/^[\\p{L}]$/u',
      received: '""',
    }),
    '이름: 비워 둘 수 없습니다',
    'Name: must not be empty',
  ],
  [
    issue({ path: 'name', message: 'use 1–40 letters …', type: 'regex', expected: '/x/', received: null }),
    '이름: 형식이 올바르지 않습니다',
    'Name: has the wrong format',
  ],
  [
    issue({
      path: 'password',
      message: 'Invalid key: Expected "password" but received undefined',
      kind: 'schema',
      type: 'object',
      expected: '"password"',
      received: 'undefined',
      inputType: 'undefined',
    }),
    '비밀번호: 꼭 입력해야 합니다',
    'Password: is required',
  ],
  [
    issue({
      path: 'username',
      message: 'required',
      kind: 'schema',
      type: 'string',
      expected: 'string',
      received: '7',
      inputType: 'number',
    }),
    '사용자 이름: 글자로 입력해야 합니다',
    'Username: must be text',
  ],
  [
    issue({
      path: 'extra',
      message: 'Invalid key: Expected never but received "extra"',
      kind: 'schema',
      type: 'strict_object',
      expected: 'never',
    }),
    'extra: 받지 않는 항목입니다',
    'extra: is not accepted here',
  ],
  [
    issue({
      path: 'provider',
      message: 'Invalid type: Expected ("anthropic" | "openai") but received "x"',
      kind: 'schema',
      type: 'picklist',
      expected: '("anthropic" | "openai")',
    }),
    '제공자: 고를 수 있는 값이 아닙니다',
    'Provider: is not one of the choices',
  ],
  [
    issue({
      path: 'limit',
      message: 'Invalid value: Expected >=1 but received 0',
      type: 'min_value',
      expected: '>=1',
      received: '0',
      requirement: 1,
      inputType: 'number',
    }),
    '개수: 1 이상이어야 합니다',
    'Count: must be 1 or more',
  ],
  [
    issue({ path: 'oauth.clientId', message: 'Invalid length', type: 'max_length', requirement: 500 }),
    '클라이언트 ID: 500자 이하여야 합니다',
    'Client ID: must be at most 500 characters',
  ],
  [
    issue({
      path: 'baseUrl',
      message: 'must be an http(s) URL without user name or password',
      type: 'check',
    }),
    'Base URL: 올바른 값이 아닙니다',
    'Base URL: is not valid',
  ],
  // A route's own issue (no machine fields): the field's generic sentence, never the English.
  [{ path: 'locale', message: 'unknown language' }, '언어: 올바른 값이 아닙니다', 'Language: is not valid'],
  [{ path: '', message: 'invalid JSON' }, '입력: 올바른 값이 아닙니다', 'Input: is not valid'],
];

describe('a validation issue as a sentence', () => {
  it.each(cases)('says %j in Korean and in English from its machine fields', (given, korean, english) => {
    expect(issueText(createTranslator('ko'), given).text).toBe(korean);
    expect(issueText(createTranslator('en'), given).text).toBe(english);
    // valibot's (or the route's) English is kept, one step away, for a bug report.
    expect(issueText(createTranslator('ko'), given).raw).toContain(given.message);
    expect(issueText(createTranslator('ko'), given).text).not.toContain(given.message);
  });

  it('names an unknown field by its path and reads only well-formed issues of an error', () => {
    expect(issueText(createTranslator('ko'), { path: 'serverIdx', message: 'x' }).text).toBe(
      'serverIdx: 올바른 값이 아닙니다',
    );
    expect(validationIssues({ issues: [{ path: 'a', message: 'm' }, { path: 'b' }, 7] })).toEqual([
      { path: 'a', message: 'm' },
    ]);
    expect(validationIssues({ code: 'validation_failed' })).toEqual([]);
    expect(validationIssues(null)).toEqual([]);
  });
});
