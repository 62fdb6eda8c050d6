import { describe, expect, it } from 'vitest';
import { consolePathOrHome } from './pages-return-path.js';

// The language switch's `next` is a field the operator (or a page that posts to HAL) can set to anything: it comes
// back as the same console page with its query, or as `/ops`, never as another host.
describe('consolePathOrHome', () => {
  it('keeps a console page with its query, a signed notice included', () => {
    const notice = '/ops/servers?notice=server_registered&notice.name=web-7&notice.sig=Zm9vYmFy';
    expect(consolePathOrHome(notice)).toBe(notice);
    expect(consolePathOrHome('/ops/jobs?state=running&cursor=01J0')).toBe(
      '/ops/jobs?state=running&cursor=01J0',
    );
    expect(consolePathOrHome('/ops')).toBe('/ops');
    expect(consolePathOrHome('/ops?notice=x')).toBe('/ops?notice=x');
    expect(consolePathOrHome('/ops/servers/srv_01.a-b')).toBe('/ops/servers/srv_01.a-b');
  });

  it('drops a fragment and re-encodes what a URL would not carry as is', () => {
    expect(consolePathOrHome('/ops/jobs?state=running#top')).toBe('/ops/jobs?state=running');
    expect(consolePathOrHome('/ops/jobs?q=a b"<>')).toBe('/ops/jobs?q=a%20b%22%3C%3E');
    // Line breaks are stripped by the parser: nothing can split the Location header.
    expect(consolePathOrHome('/ops/jobs?x=1\r\nSet-Cookie: a=b')).toBe('/ops/jobs?x=1Set-Cookie:%20a=b');
  });

  it('sends anything that leaves this HAL or the console home', () => {
    for (const next of [
      undefined,
      '',
      'ops/servers',
      '//127.0.0.2/ops',
      '/\\127.0.0.2/ops',
      '/\t/127.0.0.2/ops',
      'http://127.0.0.2/ops',
      'javascript:alert(1)',
      '/opsx',
      '/ops/../login',
      '/ops/%2e%2e/login',
      '/ops/servers%2Fx',
      '/login?next=/ops',
      `/ops/${'a'.repeat(2100)}`,
    ]) {
      expect(consolePathOrHome(next), String(next)).toBe('/ops');
    }
  });
});
