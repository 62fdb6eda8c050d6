// The loopback rule as pure functions, with no side effects: the test guard (test-loopback-only.mjs) installs
// them, and a test can import them without installing anything.
import net from 'node:net';

/**
 * True for a loopback address: 127.0.0.0/8, ::1, and IPv4-mapped 127.x (`::ffff:127.0.0.1`).
 *
 * @param {string} address an IP literal (brackets allowed)
 * @returns {boolean}
 */
export function isLoopbackAddress(address) {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (net.isIPv4(bare)) return bare.split('.')[0] === '127';
  if (!net.isIPv6(bare)) return false;
  if (bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  return mapped !== null && isLoopbackAddress(mapped[1]);
}

/**
 * True for a name that resolves on this machine without asking a DNS server: `localhost` and `*.localhost`
 * (RFC 6761), or a loopback IP literal.
 *
 * @param {string} hostname
 * @returns {boolean}
 */
export function isLoopbackName(hostname) {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isLoopbackAddress(name);
}
