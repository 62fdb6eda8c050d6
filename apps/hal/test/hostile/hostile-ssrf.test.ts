import { isBlockedAddress, normaliseWebUrl } from '@hal-ai/web';
import { describe, expect, it } from 'vitest';
import { createTally, recordFigures } from './hostile-figures.test-support.js';

/*
 * The network rule of these tests: no socket is ever opened here. Each spelling is parsed as the fetcher parses a
 * URL, and its host is checked by the same address rule the connect-time guard applies (as a function).
 */
const SPELLINGS = [
  'http://127.0.0.1/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0177.0.0.1/',
  'http://127.1/',
  'http://0/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://10.0.0.1/',
  'http://0x0a.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/',
  'http://[fd00:ec2::254]/',
  'http://[::ffff:169.254.169.254]/',
  'http://100.64.0.1/',
  'http://[fc00::1]/',
  'http://[fe80::1]/',
  'http://224.0.0.1/',
  'http://0.0.0.0/',
  'http://[::]/',
  'http://[::127.0.0.1]/',
];

describe('hostile: SSRF spellings (the address rule as a function)', () => {
  it('refuses every loopback, private, link-local, CGNAT, ULA, multicast and metadata spelling', (context) => {
    const { tally, check } = createTally();
    for (const spelling of SPELLINGS) {
      let blocked: boolean;
      try {
        const host = normaliseWebUrl(spelling).hostname;
        blocked = isBlockedAddress(host.replace(/^\[(.*)\]$/, '$1'));
      } catch (error) {
        blocked = (error as { code?: string }).code === 'web_blocked';
      }
      check(blocked, spelling);
    }
    // The metadata address stays blocked even with the named allowance for private networks.
    check(isBlockedAddress('169.254.169.254', { allowPrivate: true }), 'metadata with allowPrivate');
    check(!isBlockedAddress('93.184.216.34'), 'a public address passes (the rule is not "block everything")');
    recordFigures(context, 'SSRF spellings', { ...tally, blockedConnections: 0 });
    expect(tally.misses).toEqual([]);
  });
});
