import { spawnSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript (node --import loads it before any TypeScript tooling), no declarations.
import { isLoopbackAddress, isLoopbackName } from '../../../scripts/loopback-rule.mjs';

// The test network rule (loopback only) is enforced by scripts/test-loopback-only.mjs in every test worker and in
// every Node child a test starts. These tests prove the guard is there and refuses before any socket leaves the
// machine: the refused targets are never dialled (the error is the guard's own code, on the next tick), and a
// blocked name that an injected resolver points at loopback lands on a counting loopback server.

let hits = 0;
let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((_request, response) => {
    hits += 1;
    response.end('loopback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Whether the guard is in this process: checked before any test dials a blocked address, so a missing guard fails
 * the test instead of opening a socket to it. */
function guardInstalled(): boolean {
  return (
    (net.Socket.prototype as unknown as Record<symbol, unknown>)[Symbol.for('hal.test.loopbackOnly')] === true
  );
}

function refusedCode(socket: net.Socket): Promise<string> {
  return new Promise((resolve) => {
    socket.on('connect', () => resolve('connected'));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('the loopback-only test rule', () => {
  it('knows loopback from everything else, as a function', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of [
      '10.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '192.168.1.1',
      'fd00::1',
      '::ffff:10.0.0.1',
    ])
      expect(isLoopbackAddress(address), address).toBe(false);
    expect(isLoopbackName('localhost')).toBe(true);
    expect(isLoopbackName('api.localhost')).toBe(true);
    expect(isLoopbackName('metadata.google.internal')).toBe(false);
  });

  it('is installed in this worker: a socket to a private or metadata address fails with the guard’s code', async () => {
    expect(guardInstalled()).toBe(true);
    for (const host of ['10.0.0.1', '169.254.169.254', 'fd00::1'])
      expect(await refusedCode(net.connect({ host, port: 80 })), host).toBe('E_LOOPBACK_ONLY');
    expect(await refusedCode(net.connect(80, '100.64.0.1'))).toBe('E_LOOPBACK_ONLY');
    const error = await fetch('http://169.254.169.254/latest/meta-data/').catch((caught: Error) => caught);
    expect((error as Error & { cause?: { code?: string } }).cause?.code).toBe('E_LOOPBACK_ONLY');
  });

  it('refuses a name the resolver answers with a private address, and lets an injected loopback answer through', async () => {
    expect(guardInstalled()).toBe(true);
    const toPrivate: net.LookupFunction = (_name, options, callback) =>
      options.all
        ? (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [
            { address: '10.9.9.9', family: 4 },
          ])
        : callback(null, '10.9.9.9', 4);
    expect(await refusedCode(net.connect({ host: 'internal.example', port, lookup: toPrivate }))).toBe(
      'E_LOOPBACK_ONLY',
    );
    const before = hits;
    const toLoopback: net.LookupFunction = (_name, options, callback) =>
      options.all
        ? (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [
            { address: '127.0.0.1', family: 4 },
          ])
        : callback(null, '127.0.0.1', 4);
    const answer = await new Promise<string>((resolve, reject) => {
      http
        .get({ host: 'internal.example', port, lookup: toLoopback }, (response) => {
          let body = '';
          response.on('data', (chunk) => {
            body += chunk;
          });
          response.on('end', () => resolve(body));
        })
        .on('error', reject);
    });
    expect(answer).toBe('loopback');
    expect(hits).toBe(before + 1);
  });

  it('never asks a DNS server: a public name fails before any query', async () => {
    expect(guardInstalled()).toBe(true);
    const error = await fetch('http://example.com/').catch((caught: Error) => caught);
    expect((error as Error & { cause?: { code?: string } }).cause?.code).toBe('E_LOOPBACK_ONLY');
  });

  it('holds in the Node children a test starts (hal serve, hal mcp, the CLIs inherit NODE_OPTIONS)', () => {
    // The child dials only once it has the guard (else it prints "unguarded" and opens nothing).
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        "const net=require('node:net');if(!net.Socket.prototype[Symbol.for('hal.test.loopbackOnly')]){console.log('unguarded')}else{net.connect({host:'10.0.0.1',port:80}).on('error',(e)=>{console.log(e.code)})}",
      ],
      { encoding: 'utf8', env: process.env, timeout: 20_000 },
    );
    expect(child.stdout.trim()).toBe('E_LOOPBACK_ONLY');
  });
});
