import { describe, expect, it } from 'vitest';
import { blockedAddressReason, isBlockedAddress } from './web-address.js';
import { normaliseWebUrl } from './web-url.js';

/** A URL host as the fetcher sees it: WHATWG-normalised first, brackets of IPv6 removed. */
function hostOf(url: string): string {
  return normaliseWebUrl(url).hostname.replace(/^\[|\]$/g, '');
}

describe('the address rule (SPEC §10), as a function', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (IPv4 inside IPv6)'],
    ['::ffff:10.0.0.1', 'private (IPv4 inside IPv6)'],
    ['::ffff:169.254.169.254', 'linkLocal (IPv4 inside IPv6)'],
    ['::127.0.0.1', 'loopback (IPv4 inside IPv6)'],
    ['64:ff9b::10.0.0.1', 'private (IPv4 inside IPv6)'],
    ['2002:7f00:1::', 'loopback (IPv4 inside IPv6)'],
    ['2001:db8::1', 'reserved'],
    ['not-an-address', 'not an IP address'],
  ])('%s is refused (%s)', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:7f00:1]/', '::ffff:7f00:1'],
    ['http://167772161/', '10.0.0.1'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['http://0/', '0.0.0.0'],
  ])('the odd spelling %s is read as %s and refused', (url, host) => {
    expect(hostOf(url)).toBe(host);
    expect(isBlockedAddress(hostOf(url))).toBe(true);
  });

  it('public unicast addresses pass, also inside an IPv4-mapped form', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:93.184.216.34']) {
      expect(blockedAddressReason(address)).toBeNull();
    }
  });

  it('the private allowance opens loopback and private ranges, never the metadata address or link-local', () => {
    const allowPrivate = { allowPrivate: true };
    for (const address of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '192.168.1.1',
      '100.64.0.1',
      'fd00::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isBlockedAddress(address, allowPrivate)).toBe(false);
    }
    for (const address of [
      '169.254.169.254',
      'fd00:ec2::254',
      '::ffff:169.254.169.254',
      'fe80::1',
      '224.0.0.1',
      '0.0.0.0',
    ]) {
      expect(isBlockedAddress(address, allowPrivate)).toBe(true);
    }
  });
});

describe('normaliseWebUrl', () => {
  it('refuses other schemes, credentials and other ports with web_blocked', () => {
    for (const url of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'http://user:pw@example.com/',
      'http://user@example.com/',
      'http://example.com:8080/',
      'https://example.com:22/',
    ]) {
      expect(() => normaliseWebUrl(url)).toThrow(expect.objectContaining({ code: 'web_blocked' }));
    }
    expect(() => normaliseWebUrl('not a url')).toThrow(expect.objectContaining({ code: 'web_fetch_failed' }));
  });

  it('normalises case, default ports and fragments (the cache key)', () => {
    expect(normaliseWebUrl('HTTPS://Example.COM:443/a?b=1#top').href).toBe('https://example.com/a?b=1');
    expect(normaliseWebUrl('http://example.com:8080/', { allowedPorts: [8080] }).port).toBe('8080');
  });
});
