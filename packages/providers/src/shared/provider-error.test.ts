import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorTypeToken, httpError, streamEventError } from './provider-error.js';

const marker = () => `internal-${randomBytes(8).toString('hex')}`;

describe('provider errors carry the status and the error type, never the far side’s text', () => {
  it('keeps no word of an HTML page that answered instead of a provider', () => {
    const secret = marker();
    const page = `<html><body><h1>Admin console</h1><p>db password: ${secret}</p></body></html>`;
    const error = httpError('openai', 404, page, [], undefined);
    expect(error.code).toBe('provider_bad_response');
    expect(error.message).toBe('openai answered HTTP 404');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(secret);
  });

  it('keeps a provider error type token, drops its message and any free-text "type"', () => {
    const secret = marker();
    const json = JSON.stringify({
      error: { type: 'authentication_error', message: `invalid key ${secret}` },
    });
    const error = httpError('anthropic', 401, json, [], undefined);
    expect(error.message).toBe('anthropic answered HTTP 401 (authentication_error)');
    expect(error.details).toMatchObject({ status: 401, type: 'authentication_error' });
    const sneaky = JSON.stringify({ error: { code: `see ${secret} for details`, message: 'x' } });
    expect(JSON.stringify(httpError('openai', 400, sneaky, [], undefined))).not.toContain(secret);
    expect(errorTypeToken('RESOURCE_EXHAUSTED')).toBe('RESOURCE_EXHAUSTED');
    expect(errorTypeToken('two words')).toBeUndefined();
  });

  it('maps a stream error event by its words but keeps only its type', () => {
    const secret = marker();
    const error = streamEventError('anthropic', 'overloaded_error', `Overloaded ${secret}`, []);
    expect(error.code).toBe('provider_unavailable');
    expect(error.message).toBe('anthropic reported an error in the stream (overloaded_error)');
    expect(JSON.stringify(error.details)).not.toContain(secret);
  });
});
