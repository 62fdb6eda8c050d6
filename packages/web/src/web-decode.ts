import iconv from 'iconv-lite';

/**
 * Charset labels as browsers read them (WHATWG Encoding): a page that says `iso-8859-1` or `euc-kr` means the
 * superset Windows code page, and one that says `gb2312` means GBK, which GB18030 extends.
 */
const LABEL_ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'us-ascii': 'windows-1252',
  ascii: 'windows-1252',
  'euc-kr': 'cp949',
  'ks_c_5601-1987': 'cp949',
  'windows-949': 'cp949',
  shift_jis: 'cp932',
  'shift-jis': 'cp932',
  sjis: 'cp932',
  'x-sjis': 'cp932',
  'windows-31j': 'cp932',
  gb2312: 'gb18030',
  gbk: 'gb18030',
  'x-gbk': 'gb18030',
  utf8: 'utf-8',
};

/** How far into an HTML body a `<meta charset>` is looked for (browsers look at the first 1024 bytes). */
const META_SCAN_BYTES = 4096;

function byteOrderMark(bytes: Uint8Array): string | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return null;
}

function metaCharset(bytes: Uint8Array): string | null {
  // Charset labels are ASCII, so reading the head as Latin-1 finds them whatever the real encoding is.
  const head = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.byteLength, META_SCAN_BYTES),
  ).toString('latin1');
  const match = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([A-Za-z0-9_:.+-]+)/i.exec(head);
  return match?.[1] ?? null;
}

/** The charset a `content-type` header names, if any. */
export function headerCharset(contentType: string | undefined): string | null {
  if (!contentType) return null;
  const match = /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType);
  return match?.[1] ?? null;
}

function supported(label: string | null): string | null {
  if (!label) return null;
  const lower = label.trim().toLowerCase();
  const name = LABEL_ALIASES[lower] ?? lower;
  return iconv.encodingExists(name) ? name : null;
}

/**
 * Decodes a fetched body: the byte order mark wins, then the header's charset, then (for HTML) a `<meta charset>`
 * or `http-equiv` declaration near the top, then UTF-8. Labels are read as browsers read them (EUC-KR as CP949,
 * Shift_JIS as Windows-31J, GB2312 as GB18030, ISO-8859-1 as windows-1252); an unknown label falls through to the
 * next source.
 *
 * @example
 * decodeBody(bytes, { contentType: 'text/html; charset=EUC-KR', html: true });
 */
export function decodeBody(bytes: Uint8Array, options: { contentType?: string; html: boolean }): string {
  const encoding =
    byteOrderMark(bytes) ??
    supported(headerCharset(options.contentType)) ??
    (options.html ? supported(metaCharset(bytes)) : null) ??
    'utf-8';
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), encoding, {
    stripBOM: true,
  });
}
