/**
 * Turns body bytes into text with the right charset, in the HTML standard's order: a BOM wins, then the
 * Content-Type charset, then a `<meta>` prescan (HTML) or the XML declaration, then UTF-8 when the
 * bytes are valid UTF-8, else windows-1252. Node's full ICU decodes the legacy encodings.
 */

export interface Decoded {
  text: string;
  /** The WHATWG name of the encoding used, e.g. `utf-8`, `shift_jis`. */
  charset: string;
}

/** The WHATWG encoding name for a label, or undefined when TextDecoder does not know it. */
export function encodingFor(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().replace(/^["']|["']$/g, '')).encoding;
  } catch {
    return undefined;
  }
}

function bomEncoding(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** The charset a `<meta>` in the first 1024 bytes declares (comments skipped), per the HTML prescan. */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 1024))
    .toString('latin1')
    .replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag);
    const encoding = encodingFor(direct?.[1]);
    if (!encoding) continue;
    // A page cannot be UTF-16 if its ASCII-compatible bytes were readable here (HTML standard).
    return encoding.startsWith('utf-16') ? 'utf-8' : encoding === 'x-user-defined' ? 'windows-1252' : encoding;
  }
  return undefined;
}

/** The encoding an XML declaration names (`<?xml version="1.0" encoding="ISO-8859-1"?>`). */
export function xmlDeclaredCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 256)).toString('latin1');
  const match = /^<\?xml\s[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(head);
  const encoding = encodingFor(match?.[1]);
  return encoding?.startsWith('utf-16') ? 'utf-8' : encoding;
}

/** windows-1252's 0x80-0x9F (WHATWG index); the rest of the range is Latin-1. */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWith(encoding: string, bytes: Uint8Array): string {
  if (encoding === 'windows-1252') {
    // Node 20.18.3+ decodes windows-1252 as Latin-1 (nodejs/node#60888), losing “smart quotes”, € and more.
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString('latin1')
      .replace(/[\x80-\x9f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
  }
  // ignoreBOM: false (the default) strips a BOM matching the encoding.
  return new TextDecoder(encoding).decode(bytes);
}

/**
 * Decodes `bytes` of a text response. `headerCharset` is the Content-Type `charset` parameter;
 * `markup` says where to look inside the body for a declaration.
 */
export function decodeText(
  bytes: Uint8Array,
  headerCharset: string | undefined,
  markup: 'html' | 'xml' | 'none',
): Decoded {
  const declared =
    bomEncoding(bytes) ??
    encodingFor(headerCharset) ??
    (markup === 'html' ? metaCharset(bytes) : markup === 'xml' ? xmlDeclaredCharset(bytes) : undefined);
  if (declared) return { text: decodeWith(declared, bytes), charset: declared };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), charset: 'utf-8' };
  } catch {
    return { text: decodeWith('windows-1252', bytes), charset: 'windows-1252' };
  }
}
