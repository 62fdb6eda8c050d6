import ipaddr from 'ipaddr.js';

/**
 * The only IPv4 range a fetch may reach: public unicast. Everything ipaddr.js names otherwise (loopback, private
 * 10/8 172.16/12 192.168/16, link-local 169.254/16 with the metadata address, CGNAT 100.64/10, unspecified 0/8,
 * multicast, broadcast, reserved and test nets, AS112, AMT) is refused.
 */
const PUBLIC_IPV4 = 'unicast';

/**
 * IPv6 ranges that carry an IPv4 address inside: checked by the address they embed, so `::ffff:127.0.0.1`,
 * `64:ff9b::10.0.0.1` or `2002:0a00:0001::` never reach what the IPv4 rule refuses.
 */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const range = address.range();
  const fromWords = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6145' || range === 'rfc6052') {
    return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  }
  if (range === '6to4') return fromWords(parts[1] ?? 0, parts[2] ?? 0);
  // IPv4-compatible (::a.b.c.d, deprecated): the first 96 bits are zero.
  if (parts.slice(0, 6).every((part) => part === 0)) return fromWords(parts[6] ?? 0, parts[7] ?? 0);
  return null;
}

/**
 * Why an IP address may not be fetched, or `null` when it is a public unicast address. The address is what a
 * resolver answered or a URL's (already WHATWG-normalised) host; odd spellings that ipaddr.js accepts (decimal
 * `2130706433`, octal `0177.0.0.1`, hex, short forms) are read as the address they stand for. Anything that is not
 * an IP address at all is refused (`'not an IP address'`): the rule fails closed.
 *
 * @example
 * blockedAddressReason('169.254.169.254'); // 'linkLocal'
 * blockedAddressReason('::ffff:127.0.0.1'); // 'loopback (IPv4 inside IPv6)'
 * blockedAddressReason('93.184.216.34'); // null
 */
export function blockedAddressReason(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // A zone index (fe80::1%eth0) only ever names a local link.
  if (bare.includes('%')) return 'linkLocal';
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(bare);
  } catch {
    return 'not an IP address';
  }
  if (parsed.kind() === 'ipv4') {
    const range = (parsed as ipaddr.IPv4).range();
    return range === PUBLIC_IPV4 ? null : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  if (v6.range() === 'loopback' || v6.range() === 'unspecified') return v6.range();
  const inner = embeddedIpv4(v6);
  if (inner) {
    const range = inner.range();
    if (range !== PUBLIC_IPV4) return `${range} (IPv4 inside IPv6)`;
    // A public IPv4 behind a translation prefix is that public address; the IPv4-compatible form is obsolete.
    return v6.range() === 'unicast' || v6.range() === 'ipv4Mapped' ? null : v6.range();
  }
  const range = v6.range();
  // Global unicast only: ULA fc00::/7 (with fd00:ec2::254), link-local, site-local, multicast, documentation,
  // discard, Teredo, ORCHID and the rest are refused.
  return range === 'unicast' ? null : range;
}

/**
 * What `HAL_WEB_ALLOW_PRIVATE=1` opens: the ranges of a private intranet and of a test machine. Link-local (with
 * the cloud metadata address), multicast, unspecified and reserved stay refused even then.
 */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'carrierGradeNat', 'uniqueLocal']);

/**
 * Whether an address is refused by SPEC §10's list. See {@link blockedAddressReason}. With `allowPrivate` (the
 * host's `HAL_WEB_ALLOW_PRIVATE=1`), loopback, private, CGNAT and ULA addresses pass; the metadata address never.
 */
export function isBlockedAddress(address: string, options: { allowPrivate?: boolean } = {}): boolean {
  const reason = blockedAddressReason(address);
  if (reason === null) return false;
  if (!options.allowPrivate) return true;
  const range = reason.replace(' (IPv4 inside IPv6)', '');
  return !PRIVATE_RANGES.has(range) || isMetadataAddress(address);
}

/** The cloud metadata endpoints (AWS, GCP, Azure, …: 169.254.169.254; AWS over IPv6: fd00:ec2::254). */
function isMetadataAddress(address: string): boolean {
  try {
    const parsed = ipaddr.process(address.replace(/^\[|\]$/g, ''));
    const text = parsed.toNormalizedString();
    return text === '169.254.169.254' || text === 'fd00:ec2:0:0:0:0:0:254';
  } catch {
    return true;
  }
}

/** Whether a URL host (as WHATWG URL leaves it) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return ipaddr.IPv6.isValid(bare) || ipaddr.IPv4.isValidFourPartDecimal(bare);
}
