import { HalError } from '@hal-ai/spec';
import { createTranslator, issueText, validationIssues } from '@hal-ai/ui-panel/i18n';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createConnectionSchema } from '../ai/connections/connection-schemas.js';
import { credentialSchema } from '../domain/auth/auth-reauthenticate.js';
import { parseInput } from './input-schema.js';

function failure(schema: v.GenericSchema, input: unknown): HalError {
  try {
    parseInput(schema, input);
  } catch (error) {
    if (HalError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the input was accepted');
}

const login = v.object({ username: credentialSchema, password: credentialSchema });

describe('parseInput', () => {
  it("gives each issue valibot's machine fields beside its path and English message", () => {
    const error = failure(login, { username: '', password: 'p'.repeat(1025) });
    expect(error.code).toBe('validation_failed');
    expect(error.details.issues).toEqual([
      {
        path: 'username',
        message: 'required',
        kind: 'validation',
        type: 'min_length',
        expected: '>=1',
        received: '0',
        requirement: 1,
        inputType: 'string',
      },
      {
        path: 'password',
        message: 'at most 1024 characters',
        kind: 'validation',
        type: 'max_length',
        expected: '<=1024',
        received: '1025',
        requirement: 1024,
        inputType: 'string',
      },
    ]);
    expect(failure(login, { password: 'p' }).details.issues).toMatchObject([
      // valibot 1.x reports a missing key on the object, expecting the key.
      { path: 'username', kind: 'schema', type: 'object', expected: '"username"', received: 'undefined' },
    ]);
  });

  it('never repeats a typed string as `received` (it may be a secret in the wrong field), but keeps the empty one', () => {
    const secret = `sk-${crypto.randomUUID()}`;
    const error = failure(createConnectionSchema, {
      provider: 'openai',
      name: secret.repeat(3),
      auth: 'api_key',
    });
    const issues = validationIssues(error.details);
    expect(issues.map((one) => one.path)).toEqual(['name']);
    expect(issues[0]).toMatchObject({ type: 'regex', received: null });
    expect(JSON.stringify({ ...issues[0], message: undefined })).not.toContain(secret);
    const empty = failure(createConnectionSchema, { provider: 'openai', name: '', auth: 'api_key' });
    expect(validationIssues(empty.details)[0]).toMatchObject({ path: 'name', received: '""' });
  });

  it('makes issues the console says in the operator’s language, not in valibot’s English', () => {
    const empty = failure(createConnectionSchema, { provider: 'openai', name: '', auth: 'api_key' });
    const [issue] = validationIssues(empty.details);
    if (!issue) throw new Error('no issue');
    expect(issueText(createTranslator('ko'), issue).text).toBe('이름: 비워 둘 수 없습니다');
    expect(issueText(createTranslator('en'), issue).text).toBe('Name: must not be empty');
    const long = failure(login, { username: 'u'.repeat(1025), password: 'p' });
    const [tooLong] = validationIssues(long.details);
    if (!tooLong) throw new Error('no issue');
    expect(issueText(createTranslator('ko'), tooLong).text).toBe('사용자 이름: 1024자 이하여야 합니다');
  });
});
