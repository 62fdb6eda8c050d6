import { describe, expect, it } from 'vitest';
import { HAL_ERROR_CODES, HAL_ERROR_STATUS, HalError } from './index.js';

describe('HalError', () => {
  it('carries a stable code, the mapped status and its details in the public body', () => {
    const error = new HalError('unknown_addressee', 'No participant named @bob', {
      details: { participants: ['alice'] },
    });
    expect(error.status).toBe(400);
    expect(error.toJSON()).toEqual({
      error: { code: 'unknown_addressee', message: 'No participant named @bob', participants: ['alice'] },
    });
  });

  it('details cannot overwrite the code or message', () => {
    const error = new HalError('not_found', 'gone', { details: { code: 'forged', message: 'forged' } });
    expect(error.toJSON().error.code).toBe('not_found');
    expect(error.toJSON().error.message).toBe('gone');
  });

  it('isInstance recognises a copy from another module instance by its Symbol.for marker', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('hal-ai.error')]: true, code: 'forbidden' });
    expect(HalError.isInstance(foreign)).toBe(true);
    expect(HalError.isInstance(new Error('plain'))).toBe(false);
    expect(HalError.isInstance(null)).toBe(false);
  });

  it('answers 500 for codes without an HTTP status of their own', () => {
    expect(new HalError('provider_timeout', 'slow').status).toBe(500);
  });

  it('lists every SPEC §12 code', () => {
    const spec12 = [
      'unauthenticated',
      'invalid_credentials',
      'rate_limited',
      'reauth_required',
      'csrf_failed',
      'forbidden',
      'not_found',
      'validation_failed',
      'unknown_addressee',
      'unknown_command',
      'command_args_required',
      'command_needs_direct_room',
      'room_fixed',
      'connection_inactive',
      'model_unavailable',
      'three_step_required',
      'identifiers_mismatch',
      'action_not_pending',
      'shell_limit',
      'secret_not_allowed',
      'oauth_state_invalid',
      'cli_not_logged_in',
      'provider_auth',
      'provider_rate_limited',
      'provider_timeout',
      'provider_bad_response',
      'provider_unavailable',
      'interrupted',
      'debate_not_running',
      'debate_invalid',
      'web_blocked',
      'web_timeout',
      'web_too_large',
      'web_unsupported_type',
      'web_fetch_failed',
    ];
    for (const code of spec12) expect(HAL_ERROR_CODES).toContain(code);
    expect(HAL_ERROR_STATUS.connection_inactive).toBe(409);
    expect(HAL_ERROR_STATUS.rate_limited).toBe(429);
    expect(HAL_ERROR_STATUS.web_blocked).toBe(400);
    expect(HAL_ERROR_STATUS.debate_not_running).toBe(409);
    expect(HAL_ERROR_STATUS.debate_invalid).toBe(400);
    expect(HAL_ERROR_STATUS.taint_confirmation_required).toBe(409);
  });
});
