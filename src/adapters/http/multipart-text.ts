import { createRequire } from 'node:module';
import type busboy from 'busboy';
import { invalidPayload } from '../../domain/errors.ts';
import { escapedText, textFlaw } from '../../domain/well-formed-text.ts';
import { namesUtf8 } from './utf8-charset.ts';

/**
 * busboy options under which the text of a multipart form reaches datagate as its bytes: a parameter
 * (`name`, `filename`) and a field value declaring no charset are decoded as latin1, one char per byte,
 * which `utf8Text` then decodes strictly. busboy's own UTF-8 decoding turns bytes that are not UTF-8
 * into U+FFFD, and docs/api.md §4a refuses such text rather than store it altered (docs/decisions/0066).
 */
export const BYTES_AS_TEXT = { defCharset: 'latin1', defParamCharset: 'latin1' } as const;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** What a part's headers say of the charset its text was decoded with, which busboy does not tell. */
export type PartHeader = {
  readonly declaredCharset: string | null;
  readonly extendedFilename: string | null;
};

/**
 * The headers of the part busboy is reading, seen as busboy parses them. busboy decodes a field value by
 * the charset its part declares, and a `filename*` (RFC 8187) by the charset it names, and reports
 * neither: without knowing, a value decoded as UTF-8 by busboy would be read as latin1 bytes again and
 * altered. busboy 1.6 parses every part header with one parser object it keeps in `_hparser`, calling
 * its `cb` with the header; the accessor wraps that callback once. The files suites send declared
 * charsets, so a busboy that works otherwise fails them rather than alter text. `onHeader` sees each
 * part's header before busboy reads the part.
 */
export function watchPartHeaders(
  parser: busboy.Busboy,
  onHeader: (header: PartHeader) => void,
): () => PartHeader {
  let current: PartHeader = { declaredCharset: null, extendedFilename: null };
  type HeaderParser = { cb: (header: Record<string, string[]>) => void };
  let held: HeaderParser | null = null;
  const wrapped = new WeakSet<HeaderParser>();
  Object.defineProperty(parser, '_hparser', {
    configurable: true,
    get: () => held,
    set(value: HeaderParser | null) {
      held = value;
      if (value === null || wrapped.has(value)) return;
      wrapped.add(value);
      const original = value.cb;
      value.cb = (header) => {
        current = partHeader(header);
        onHeader(current);
        original(header);
      };
    },
  });
  return () => current;
}

/**
 * busboy's own readers of a part's header (1.6, lib/utils.js), so that the charset found is the one busboy
 * decoded with, whatever a quoted parameter holds.
 */
type BusboyUtils = {
  parseContentType(text: string): { params: Record<string, string> | null } | undefined;
  parseDisposition(
    text: string,
    decoder: (text: string, hint: number) => string,
  ): { params: Record<string, string> | null } | undefined;
  getDecoder(charset: string): (text: string, hint: number) => string;
};
const BUSBOY = createRequire(import.meta.url)('busboy/lib/utils.js') as BusboyUtils;
const LATIN1 = BUSBOY.getDecoder('latin1');

/** Header values are latin1 text (one char per byte). */
function partHeader(header: Record<string, string[]>): PartHeader {
  const type = header['content-type']?.[0];
  const disposition = header['content-disposition']?.[0] ?? '';
  const charset = type === undefined ? undefined : BUSBOY.parseContentType(type)?.params?.charset;
  // Every `filename*` charset in the text, a quoted value's included: one that is not UTF-8 is refused
  // wherever it stands (busboy skips a part whose charset it does not know, without a word).
  const foreign = [...disposition.matchAll(EXTENDED_FILENAME)]
    .map((match) => (match[1] ?? '').toLowerCase())
    .find((named) => !namesUtf8(named));
  const extended =
    foreign ??
    (BUSBOY.parseDisposition(disposition, LATIN1)?.params?.['filename*'] === undefined ? null : 'utf-8');
  return {
    declaredCharset: charset === undefined ? null : charset.toLowerCase(),
    extendedFilename: extended,
  };
}

/** The charset of a `filename*=charset'lang'value` parameter. */
const EXTENDED_FILENAME = /;\s*filename\*\s*=\s*([^']*)'/gi;

/**
 * A field's name and value as the client sent them. With no charset declared busboy kept its bytes, decoded here as
 * strict UTF-8. A part declaring UTF-8 was decoded by busboy leniently: a U+FFFD in it may stand for bytes
 * that were not UTF-8, so it is refused. Any other charset is refused: the form is UTF-8, as browsers send
 * it, and busboy's decoding of the rest (windows-1252 read as latin1, most charsets not at all) is no
 * reading to store.
 */
export function fieldText(
  name: string | undefined,
  value: string | undefined,
  header: PartHeader,
): { readonly name: string; readonly value: string } {
  // A name that is not UTF-8 is named by its lenient reading, the nearest to what the client meant.
  // A part without a name is a field named "", refused later as a field the collection does not have.
  const bytes = name ?? '';
  const field = utf8Text(bytes, 'A form field name', leniently(bytes));
  const charset = header.declaredCharset;
  if (charset === null) {
    return {
      name: field,
      value: wellFormed(field, utf8Text(value ?? '', `Form field "${shown(field)}"`, field)),
    };
  }
  if (!namesUtf8(charset)) {
    throw invalidPayload(
      `Form field "${shown(field)}" declares charset "${shown(charset)}": send form fields as UTF-8.`,
      shown(field),
    );
  }
  if (value === undefined || value.includes('\uFFFD')) throw notUtf8(`Form field "${shown(field)}"`, field);
  return { name: field, value: wellFormed(field, value) };
}

/**
 * A `filename*` in another charset than UTF-8 is refused as soon as its part's header is read: busboy
 * would decode windows-1252 as latin1, and skip the part without a word for a charset it does not know.
 */
export function assertUtf8Filename(header: PartHeader): void {
  const charset = header.extendedFilename;
  if (charset !== null && !namesUtf8(charset)) {
    throw invalidPayload(
      `The file name is given in charset "${shown(charset)}": give it as UTF-8 (filename*=UTF-8''…).`,
      'filename',
    );
  }
}

/** A file part's name: `filename` as its UTF-8 bytes, or a `filename*` in UTF-8 (see fieldText). */
export function filenameText(filename: string | undefined, header: PartHeader): string {
  if (header.extendedFilename === null) {
    return wellFormed('filename', utf8Text(filename ?? '', 'The file name', 'filename'), 'The file name');
  }
  assertUtf8Filename(header);
  if (filename === undefined || filename.includes('\uFFFD')) throw notUtf8('The file name', 'filename');
  return wellFormed('filename', filename, 'The file name');
}

/** A field name as busboy gave it (its bytes as latin1), as a message shows it. */
export function shownName(latin1: string): string {
  return shown(leniently(latin1));
}

function leniently(latin1: string): string {
  return Buffer.from(latin1, 'latin1').toString('utf8');
}

/** Text busboy decoded as latin1, read back as its bytes, decoded as UTF-8. */
function utf8Text(latin1: string, what: string, field: string): string {
  try {
    return UTF8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    throw notUtf8(what, field);
  }
}

function notUtf8(what: string, field: string): Error {
  return invalidPayload(`${what} is not valid UTF-8.`, shown(field));
}

/** docs/api.md §4a: strict UTF-8 makes no lone surrogate, but a NUL byte is UTF-8. */
function wellFormed(field: string, text: string, what = `Form field "${shown(field)}"`): string {
  const flaw = textFlaw(field) ?? textFlaw(text);
  if (flaw) throw invalidPayload(`${what} contains ${flaw}.`, shown(field));
  return text;
}

/** As much of a name as a message shows, escaped so that the answer and the log stay plain text. */
function shown(text: string): string {
  return escapedText(text).slice(0, 100);
}
