import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type HalProcess, startHalProcess } from '../hal-serve.test-support.js';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

// Issue #22 hole 2: three concurrent 190 MB bodies to the open `POST /ops/login` took a real `hal serve` from ~100 MB
// to ~1.1 GB RSS before it answered. Here a spawned `hal serve` gets such bodies, streamed from a generator (the
// test never holds one), and must answer each with its §12 code while the sender is still far from done, with its
// resident memory bounded.

/** What each hostile body would weigh if HAL read it to the end. */
const BODY_BYTES = 190 * 1024 * 1024;
/** One reusable chunk: the generator sends this buffer again and again, so the test allocates 64 KiB, not 190 MB. */
const CHUNK = Buffer.alloc(64 * 1024, 'a');
const CRLF = Buffer.from('\r\n');
/** How much more than before HAL may hold while it refuses the bodies (the hole was ~1 GB). */
const RSS_BOUND_BYTES = 100 * 1024 * 1024;
/**
 * A refusal "before the body is read": the answer must come while the sender has sent less than this. Socket buffers
 * and the 1 MB cap of a JSON or urlencoded body that declares no length make up a few MB; the hole read all 190.
 */
const SENT_BOUND_BYTES = 24 * 1024 * 1024;

type Kind = 'multipart' | 'urlencoded' | 'json';

const CONTENT_TYPES: Record<Kind, string> = {
  multipart: 'multipart/form-data; boundary=hostile-boundary',
  urlencoded: 'application/x-www-form-urlencoded',
  json: 'application/json',
};

/** The first bytes of each kind: a well-formed start, then the password field never ends. */
const HEADS: Record<Kind, string> = {
  multipart:
    '--hostile-boundary\r\nContent-Disposition: form-data; name="username"\r\n\r\nadmin\r\n' +
    '--hostile-boundary\r\nContent-Disposition: form-data; name="password"\r\n\r\n',
  urlencoded: 'username=admin&password=',
  json: '{"username":"admin","password":"',
};

/** The body of `kind`, `BODY_BYTES` long, produced chunk by chunk as the socket drains. */
function* hostileBody(kind: Kind): Generator<Buffer> {
  const head = Buffer.from(HEADS[kind]);
  yield head;
  let sent = head.byteLength;
  while (sent < BODY_BYTES) {
    const piece = Math.min(CHUNK.byteLength, BODY_BYTES - sent);
    yield piece === CHUNK.byteLength ? CHUNK : CHUNK.subarray(0, piece);
    sent += piece;
  }
}

interface Answer {
  kind: Kind;
  declared: boolean;
  status: number;
  code: string | undefined;
  /** Bytes the sender had written when the answer's head arrived. */
  sentWhenAnswered: number;
}

/**
 * Posts a 190 MB body of `kind` to `/ops/login` over a raw socket (so a reset after HAL's answer cannot hide the
 * answer), its length declared or chunked, writing from the generator with backpressure and stopping as soon as the
 * answer's head arrives (the rest is never sent).
 */
function postHostile(base: string, kind: Kind, declared: boolean, close = false): Promise<Answer> {
  const url = new URL('/ops/login', base);
  const head =
    `POST /ops/login HTTP/1.1\r\nHost: ${url.host}\r\nOrigin: ${url.origin}\r\n` +
    // With `Connection: close` HAL must still let the sender read its answer: it half-closes and drains what
    // follows for a while rather than closing a socket with unread bytes (the kernel's reset would drop the answer).
    (close ? 'Connection: close\r\n' : '') +
    `Content-Type: ${CONTENT_TYPES[kind]}\r\n` +
    (declared ? `Content-Length: ${BODY_BYTES}\r\n` : 'Transfer-Encoding: chunked\r\n') +
    '\r\n';
  return new Promise((resolve) => {
    let sent = 0;
    let sentWhenAnswered: number | undefined;
    let received = '';
    const socket = net.connect(Number(url.port), url.hostname);
    const finish = () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      // A connection closed with no answer counts as a miss below (status 0, all that was sent).
      // A JSON route answers `{"error":{"code":…}}`; the login form (urlencoded, as a browser posts it) answers
      // its localised page, whose alert carries the same code in `data-error-code`.
      const match = /"code":"([a-z_]+)"|data-error-code="([a-z_]+)"/.exec(received);
      const code = match?.[1] ?? match?.[2];
      resolve({ kind, declared, status, code, sentWhenAnswered: sentWhenAnswered ?? sent });
    };
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      if (sentWhenAnswered === undefined) sentWhenAnswered = sent;
      received += text;
      // The whole error body is small: once it is in, the test hangs up (HAL may or may not have already).
      if (/\r\n\r\n[\s\S]*\}/.test(received)) socket.destroy();
    });
    // HAL may reset the connection once it has answered; only a reset with no answer at all is a failure.
    socket.on('error', () => {});
    socket.on('close', finish);
    const body = hostileBody(kind);
    const pump = () => {
      while (sentWhenAnswered === undefined && !socket.destroyed) {
        const next = body.next();
        if (next.done) {
          socket.end(declared ? '' : '0\r\n\r\n');
          return;
        }
        sent += next.value.byteLength;
        const framed = declared
          ? next.value
          : Buffer.concat([Buffer.from(`${next.value.byteLength.toString(16)}\r\n`), next.value, CRLF]);
        if (!socket.write(framed)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    socket.once('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

/** The resident set of process `pid`, in bytes (`VmRSS` of /proc/<pid>/status). */
function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  if (kib === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kib) * 1024;
}

let root: string;
let hal: HalProcess;

beforeAll(async () => {
  ensureBuilt();
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hal-hostile-body-'));
  hal = await startHalProcess(path.join(root, 'data'), { HAL_LOG_LEVEL: 'warn' });
}, 600_000);
afterAll(async () => {
  await hal?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('hostile: 190 MB bodies to the open login', () => {
  it('answers multipart, urlencoded and JSON (three at once, declared and chunked) before reading them, RSS bounded', async (context) => {
    const pid = hal.child.pid;
    if (pid === undefined) throw new Error('hal serve has no pid');
    // A first, ordinary login settles the process (modules loaded, the database open) so the baseline is fair.
    const warm = await fetch(new URL('/ops/login', hal.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: new URL(hal.url).origin },
      body: JSON.stringify({ username: 'admin', password: 'not-the-password' }),
    });
    expect(warm.status).toBe(401);
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    const answers: Answer[] = [];
    try {
      for (const declared of [true, false]) {
        // The three kinds concurrently, as in the report (three bodies at once took it past 1 GB).
        answers.push(
          ...(await Promise.all(
            (['multipart', 'urlencoded', 'json'] as const).map((kind) =>
              postHostile(hal.url, kind, declared),
            ),
          )),
        );
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(pid));
    const after = rssOf(pid);

    const { tally, check } = createTally();
    for (const answer of answers) {
      const label = `${answer.kind} ${answer.declared ? 'with Content-Length' : 'chunked'}`;
      // A declared 190 MB is over the 1 MB cap from the headers alone; undeclared, multipart is the wrong type
      // for the login (415, from the headers), and JSON or urlencoded stop at the first byte over 1 MB.
      const expected =
        answer.declared || answer.kind !== 'multipart'
          ? { status: 413, code: 'payload_too_large' }
          : { status: 415, code: 'unsupported_media_type' };
      check(
        answer.status === expected.status && answer.code === expected.code,
        `${label}: ${answer.status} ${answer.code}`,
      );
      check(
        answer.sentWhenAnswered < SENT_BOUND_BYTES,
        `${label}: answered after ${answer.sentWhenAnswered} bytes`,
      );
    }
    // Still serving, and the refused bodies signed nobody in.
    const health = await fetch(new URL('/api/health', hal.url));
    check(health.status === 200, `health after the bodies: ${health.status}`);
    check(
      peak - before < RSS_BOUND_BYTES,
      `RSS grew ${Math.round((peak - before) / 2 ** 20)} MB at its peak`,
    );
    context.annotate(
      `RSS before ${Math.round(before / 2 ** 20)} MB, peak ${Math.round(peak / 2 ** 20)} MB, after ` +
        `${Math.round(after / 2 ** 20)} MB; sent when answered: ${answers.map((a) => a.sentWhenAnswered).join(', ')}`,
    );
    recordFigures(context, 'body size, type and shape', tally);
    expect(tally.misses).toEqual([]);
  }, 300_000);

  it('answers the same bodies sent with `Connection: close` so the sender reads the 413, not a reset, RSS bounded', async (context) => {
    const pid = hal.child.pid;
    if (pid === undefined) throw new Error('hal serve has no pid');
    const before = rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);
    const answers: Answer[] = [];
    try {
      // Several rounds: a reset that drops the answer is a race, lost more often than not but not always.
      for (let round = 0; round < 3; round++) {
        for (const declared of [true, false]) {
          answers.push(
            ...(await Promise.all(
              (['multipart', 'urlencoded', 'json'] as const).map((kind) =>
                postHostile(hal.url, kind, declared, true),
              ),
            )),
          );
        }
      }
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rssOf(pid));
    const { tally, check } = createTally();
    for (const answer of answers) {
      const label = `${answer.kind} ${answer.declared ? 'with Content-Length' : 'chunked'}, Connection: close`;
      const expected =
        answer.declared || answer.kind !== 'multipart'
          ? { status: 413, code: 'payload_too_large' }
          : { status: 415, code: 'unsupported_media_type' };
      check(
        answer.status === expected.status && answer.code === expected.code,
        `${label}: ${answer.status} ${answer.code}`,
      );
      check(
        answer.sentWhenAnswered < SENT_BOUND_BYTES,
        `${label}: answered after ${answer.sentWhenAnswered} bytes`,
      );
    }
    const health = await fetch(new URL('/api/health', hal.url));
    check(health.status === 200, `health after the bodies: ${health.status}`);
    check(
      peak - before < RSS_BOUND_BYTES,
      `RSS grew ${Math.round((peak - before) / 2 ** 20)} MB at its peak`,
    );
    context.annotate(
      `Connection: close — RSS before ${Math.round(before / 2 ** 20)} MB, peak ${Math.round(peak / 2 ** 20)} MB`,
    );
    recordFigures(context, 'body size, type and shape', tally);
    expect(tally.misses).toEqual([]);
  }, 300_000);
});
