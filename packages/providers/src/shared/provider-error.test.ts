import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAnthropic } from '../anthropic/anthropic-provider.js';
import { errorTypeToken, httpError, streamEventError, transportError } from './provider-error.js';
import { rejection } from './provider-rejection.test-support.js';

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

describe('transport failures carry their kind, never the socket’s words', () => {
  /** A loopback port nothing listens on (taken, then released). */
  async function closedPort(): Promise<number> {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return port;
  }

  it('a closed port is "unreachable", without the address, the port or the error number', async () => {
    const port = await closedPort();
    const error = await rejection(
      createAnthropic({ apiKey: marker(), baseUrl: `http://127.0.0.1:${port}` }).listModels(),
    );
    const shown = JSON.stringify({ message: error.message, details: error.details });
    for (const word of [`:${port}`, '127.0.0.1', 'ECONNREFUSED']) expect(shown).not.toContain(word);
    expect(error.code).toBe('provider_unavailable');
    expect(error.message).toBe('anthropic is unreachable');
    expect(error.details).toEqual({ provider: 'anthropic', cause: 'unreachable' });
  });

  it("a connect timeout and a cut stream drop undici's message (it names the attempted address)", () => {
    const address = `10.${randomBytes(1)[0]}.0.7:8443`;
    const timeout = Object.assign(
      new Error(`Connect Timeout Error (attempted address: ${address}, timeout: 10000ms)`),
      { code: 'UND_ERR_CONNECT_TIMEOUT' },
    );
    // undici's `request` throws its ConnectTimeoutError as is.
    const late = transportError('openai', timeout, 'connect', []);
    expect(late.message).not.toContain(address);
    expect(late).toMatchObject({
      code: 'provider_timeout',
      details: { provider: 'openai', cause: 'timeout' },
    });
    const cut = transportError('openai', new Error(`other side closed ${address}`), 'body', []);
    expect(cut.message).not.toContain(address);
    expect(cut.code).toBe('provider_bad_response');
  });
});
