import { invalidPayload } from '../../domain/errors.ts';
import { hasProtoKey } from '../../domain/proto-key.ts';
import type { CollectionSchema } from '../../domain/schema/collection-schema.ts';
import { fieldOf } from '../../domain/schema/collection-schema.ts';
import { findTextFlaw, flawedTextError, jsonMayHoldFlawedText } from '../../domain/well-formed-text.ts';
import type { FileUploadHead } from './file-upload.ts';

/**
 * The item payload a multipart file's form fields make: text as the form carries it (JSON text for a
 * json field such as `metadata`), and on create the part's file name as `filename_download` unless a
 * field sets it. A file's id is the server's to choose. Checked as any item payload is (parseItemPayload).
 */
export function fileMetadata(
  upload: FileUploadHead,
  files: CollectionSchema,
  mode: 'create' | 'update',
): Record<string, unknown> {
  if (Object.hasOwn(upload.fields, 'id'))
    throw invalidPayload('A file\'s "id" is chosen by the server.', 'id');
  // No prototype: a field named `__proto__` is then an unknown field, refused, like any other.
  const raw: Record<string, unknown> = Object.create(null);
  for (const [name, text] of Object.entries(upload.fields)) {
    raw[name] = fieldOf(files, name)?.type === 'json' ? parsedJson(name, text) : text;
  }
  if (mode === 'create' && raw.filename_download === undefined && upload.filename !== '') {
    raw.filename_download = upload.filename;
  }
  return raw;
}

/**
 * JSON escapes may spell what UTF-8 text cannot hold (docs/api.md §4a), and a `__proto__` key is refused:
 * both as in a JSON body.
 */
function parsedJson(name: string, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidPayload(`Field "${name}" must be JSON text.`, name);
  }
  if (hasProtoKey(value)) throw invalidPayload(`The value of "${name}" has a "__proto__" key.`, name);
  const flawed = jsonMayHoldFlawedText(text) ? findTextFlaw(value) : null;
  if (flawed) throw flawedTextError({ ...flawed, path: [name, ...flawed.path] });
  return value;
}
