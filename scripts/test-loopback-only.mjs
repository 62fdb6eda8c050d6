// The test network rule, enforced: a test process (and every Node child it starts) may open TCP sockets to
// loopback only (127.0.0.0/8, ::1) and may resolve only loopback names. A review cannot promise "never, even when
// the code under test is wrong"; this guard can. It is loaded by vitest's `setupFiles` in every package's workers
// (vitest.shared.ts) and, through `NODE_OPTIONS=--import`, in the `hal serve`, `hal mcp` and CLI children those
// tests spawn. A refused socket never reaches the kernel: it fails with `E_LOOPBACK_ONLY` on the next tick, and the
// attempt is written to stderr so a test that swallowed the error still shows it.
//
// Plain JavaScript with no dependencies, because `node --import` loads it before any TypeScript tooling exists.
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { isLoopbackAddress, isLoopbackName } from './loopback-rule.mjs';

const INSTALLED = Symbol.for('hal.test.loopbackOnly');

function refusal(target) {
  const error = new Error(`loopback-only test rule: refused a connection to ${target}`);
  error.code = 'E_LOOPBACK_ONLY';
  return error;
}

function report(target) {
  process.stderr.write(`[loopback-only] refused a connection to ${target}\n`);
}

/** The options object `Socket.prototype.connect` was called with, in any of its call shapes. */
function connectOptions(args) {
  const first = args[0];
  if (Array.isArray(first)) return first[0];
  if (first !== null && typeof first === 'object') return first;
  return undefined;
}

/** Wraps a `lookup(hostname, options, callback)` so that a non-loopback answer fails instead of connecting. */
function guardedLookup(lookup) {
  return function loopbackLookup(hostname, options, callback) {
    const done = typeof options === 'function' ? options : callback;
    const lookupOptions = typeof options === 'function' ? {} : options;
    lookup(hostname, lookupOptions, (error, address, family) => {
      if (error) return done(error);
      const answers = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const foreign = answers.find((answer) => !isLoopbackAddress(String(answer)));
      if (foreign !== undefined) {
        report(`${hostname} (${foreign})`);
        return done(refusal(`${hostname} (${foreign})`));
      }
      return done(null, address, family);
    });
  };
}

/**
 * Installs the guard in this process (once): TCP connects to a non-loopback IP and lookups of non-loopback names
 * fail with `E_LOOPBACK_ONLY`; Unix sockets and loopback pass untouched.
 */
export function installLoopbackGuard() {
  if (net.Socket.prototype[INSTALLED]) return;
  const connect = net.Socket.prototype.connect;
  Object.defineProperty(net.Socket.prototype, INSTALLED, { value: true });

  net.Socket.prototype.connect = function loopbackConnect(...args) {
    const options = connectOptions(args);
    // connect(path) and {path}: a Unix socket, never the network.
    if (typeof args[0] === 'string' || typeof options?.path === 'string') return connect.apply(this, args);
    const host = String((options === undefined ? args[1] : options.host) ?? 'localhost');
    const literal = net.isIP(host.replace(/^\[|\]$/g, '')) !== 0;
    if (literal || options === undefined) {
      if (!isLoopbackName(host)) {
        report(host);
        process.nextTick(() => this.destroy(refusal(host)));
        return this;
      }
      return connect.apply(this, args);
    }
    // A name: whatever resolves it (an injected resolver or the system's) must answer loopback.
    options.lookup = guardedLookup(options.lookup ?? dns.lookup);
    return connect.apply(this, args);
  };

  const lookup = dns.lookup;
  dns.lookup = function loopbackDnsLookup(hostname, options, callback) {
    const done = typeof options === 'function' ? options : callback;
    if (typeof hostname === 'string' && !isLoopbackName(hostname)) {
      report(hostname);
      process.nextTick(() => done(refusal(hostname)));
      return {};
    }
    return lookup.call(dns, hostname, options, callback);
  };
  const lookupPromise = dnsPromises.lookup;
  dnsPromises.lookup = async function loopbackDnsPromisesLookup(hostname, options) {
    if (typeof hostname === 'string' && !isLoopbackName(hostname)) {
      report(hostname);
      throw refusal(hostname);
    }
    return lookupPromise.call(dnsPromises, hostname, options);
  };
  // ESM `import { lookup } from 'node:dns/promises'` sees the guarded functions too.
  syncBuiltinESMExports();
}

installLoopbackGuard();
