import { HalError } from '@hal-ai/spec';
import { describe, expect, it } from 'vitest';
import { toWebContextBlock } from './web-context-block.js';
import { extractMessageUrls } from './web-message-urls.js';

describe('extractMessageUrls', () => {
  it('takes http and https links with trailing punctuation trimmed', () => {
    expect(extractMessageUrls('What does https://example.com/notes say? And http://b.example/x.')).toEqual([
      'https://example.com/notes',
      'http://b.example/x',
    ]);
    expect(extractMessageUrls('see (https://en.example/wiki/A_(b)), "https://q.example/?a=1";')).toEqual([
      'https://en.example/wiki/A_(b)',
      'https://q.example/?a=1',
    ]);
    expect(extractMessageUrls('릴리스 노트 https://example.com/release。확인 부탁')).toEqual([
      'https://example.com/release',
    ]);
  });

  it('keeps at most two, drops duplicates and other schemes', () => {
    expect(
      extractMessageUrls(
        'https://a.example/ https://A.example/#x ftp://c.example/ https://b.example/ https://c.example/',
      ),
    ).toEqual(['https://a.example/', 'https://b.example/']);
    expect(extractMessageUrls('javascript:alert(1) file:///etc/passwd')).toEqual([]);
  });

  it('takes none from a slash command', () => {
    expect(extractMessageUrls('/order fetch https://example.com/')).toEqual([]);
    expect(extractMessageUrls('  /servers https://example.com/')).toEqual([]);
  });
});

describe('toWebContextBlock', () => {
  const page = {
    url: 'https://example.com/a',
    finalUrl: 'https://example.com/b',
    contentType: 'text/html',
    title: 'B',
    text: 'x'.repeat(10_000),
    truncated: false,
    fetchedAt: '2026-01-01T00:00:00.000Z',
  };

  it('caps a page at 8,000 characters per block and says so', () => {
    expect(toWebContextBlock('https://example.com/a', { page })).toEqual({
      type: 'context',
      source: 'web',
      url: 'https://example.com/a',
      finalUrl: 'https://example.com/b',
      title: 'B',
      text: 'x'.repeat(8_000),
      truncated: true,
      fetchedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(toWebContextBlock('u', { page: { ...page, text: 'short', truncated: true } })).toMatchObject({
      text: 'short',
      truncated: true,
    });
  });

  it('turns a failure into an error block with its code', () => {
    expect(toWebContextBlock('http://10.0.0.1/', { error: new HalError('web_blocked', 'private') })).toEqual({
      type: 'context',
      source: 'web',
      url: 'http://10.0.0.1/',
      error: { code: 'web_blocked', message: 'private' },
    });
    expect(toWebContextBlock('u', { error: new Error('boom') })).toMatchObject({
      error: { code: 'web_fetch_failed' },
    });
  });
});
