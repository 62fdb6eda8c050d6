import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestSession } from '../../../test/foundation.test-support.js';

/** A body that counts how often it was read from: a refusal "before reading" leaves it at 0. */
function countedBody(bytes: number) {
  const counter = { pulls: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        counter.pulls += 1;
        controller.enqueue(new Uint8Array(Math.min(bytes, 64 * 1024)));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, counter };
}

describe('body type and size policy', () => {
  let hal: TestApp;
  let session: TestSession;

  beforeEach(async () => {
    hal = await createTestApp();
    session = await hal.login();
  });
  afterEach(() => hal.close());

  async function incidents() {
    return (await hal.deps.core.incidents.list()).incidents.length;
  }

  it('a JSON route refuses a JSON text sent as text/plain, form or multipart with 415, storing nothing', async () => {
    const before = await incidents();
    const text = JSON.stringify({ key: 'disk-full', title: 'Disk full', severity: 'major' });
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const response = await hal.request('/ops/api/hal/incidents', {
        method: 'POST',
        session,
        headers: { 'content-type': type },
        body: text,
      });
      expect(response.status, type).toBe(415);
      const body = (await response.json()) as { error: { code: string; accepted: string[] } };
      expect(body.error.code).toBe('unsupported_media_type');
      expect(body.error.accepted).toEqual(['application/json']);
    }
    expect(await incidents()).toBe(before);
    // The same body as JSON is taken.
    const ok = await hal.request('/ops/api/hal/incidents', {
      method: 'POST',
      session,
      json: { key: 'disk-full', title: 'Disk full', severity: 'major' },
    });
    expect(ok.status).toBe(201);
  });

  it('a multipart body to a JSON route is refused from its headers without reading a byte', async () => {
    const { stream, counter } = countedBody(190 * 1024 * 1024);
    const response = await hal.request('/ops/api/hal/incidents', {
      method: 'POST',
      session,
      headers: {
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(190 * 1024 * 1024),
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    // Over the 1 MB cap and of the wrong type: either refusal comes from the headers alone.
    expect([413, 415]).toContain(response.status);
    expect(counter.pulls).toBe(0);
    // Within the cap, the type alone refuses it, still unread.
    const small = countedBody(1000);
    const typed = await hal.request('/ops/api/hal/incidents', {
      method: 'POST',
      session,
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': '1000' },
      body: small.stream,
      duplex: 'half',
    } as RequestInit);
    expect(typed.status).toBe(415);
    expect(small.counter.pulls).toBe(0);
  });

  it('only the release upload takes multipart, and only it gets the upload cap', async () => {
    // A console form other than the upload: a 5 MB multipart body is over the 1 MB cap (it used to get 200 MB).
    const { stream, counter } = countedBody(5 * 1024 * 1024);
    const form = await hal.request('/ops/incidents', {
      method: 'POST',
      session,
      headers: {
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(5 * 1024 * 1024),
      },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect([413, 415]).toContain(form.status);
    expect(counter.pulls).toBe(0);
    // The upload route refuses JSON (its reader: not multipart), and a JSON body there keeps the small cap.
    const json = await hal.request('/ops/api/hal/releases', {
      method: 'POST',
      session,
      json: { module: 'web', version: '1.0.0' },
    });
    expect(json.status).toBe(400);
    const bigJson = countedBody(5 * 1024 * 1024);
    const refusedJson = await hal.request('/ops/api/hal/releases', {
      method: 'POST',
      session,
      headers: { 'content-type': 'application/json', 'content-length': String(5 * 1024 * 1024) },
      body: bigJson.stream,
      duplex: 'half',
    } as RequestInit);
    expect(refusedJson.status).toBe(413);
    expect(bigJson.counter.pulls).toBe(0);
    // A declared 5 MB multipart upload passes the size check there (it fails later, on its malformed content).
    const upload = countedBody(5 * 1024 * 1024);
    const accepted = await hal.request('/ops/api/hal/releases', {
      method: 'POST',
      session,
      headers: {
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(5 * 1024 * 1024),
      },
      body: upload.stream,
      duplex: 'half',
    } as RequestInit);
    expect(accepted.status).not.toBe(413);
    expect(accepted.status).not.toBe(415);
  });

  it('a JSON body over the small cap is 413 before it is read; a request without a body needs no type', async () => {
    const { stream, counter } = countedBody(2 * 1024 * 1024);
    const big = await hal.request('/ops/api/hal/incidents', {
      method: 'POST',
      session,
      headers: { 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(big.status).toBe(413);
    expect(counter.pulls).toBe(0);
    const empty = await hal.request('/ops/api/hal/dr/snapshots', {
      method: 'POST',
      session,
      headers: { 'content-length': '0' },
    });
    expect(empty.status).not.toBe(415);
  });
});
