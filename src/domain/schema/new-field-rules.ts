import { characterCount } from '../character-count.ts';
import { failedValidation } from '../errors.ts';
import { isSystemCollection } from './collection-schema.ts';
import { FIELD_TYPES } from './field-type.ts';
import { DEFAULT_STRING_LENGTH, type NewField } from './new-field.ts';

/**
 * What a created table or column must satisfy before any SQL is built: names PostgreSQL keeps as they are
 * (no folding, at most 63 bytes), types the API knows, lengths PostgreSQL accepts. Names of existing
 * tables and columns are not held to this: introspection shows whatever the database has.
 */
export const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * PostgreSQL's system columns, which every table has: a column cannot take one of these names (PostgreSQL
 * would refuse it as a duplicate, which reads like a clash with a field of the collection).
 */
const SYSTEM_COLUMNS: ReadonlySet<string> = new Set(['tableoid', 'xmin', 'cmin', 'xmax', 'cmax', 'ctid']);

/** PostgreSQL's limit for varchar(n). */
const MAX_VARCHAR_LENGTH = 10_485_760;

export function checkCollectionName(name: string): void {
  if (!NAME.test(name)) {
    throw failedValidation(
      'collection',
      'A collection name is 1–63 letters, digits or "_", not starting with a digit.',
    );
  }
  if (isSystemCollection(name)) throw failedValidation('collection', 'The "datagate_" prefix is reserved.');
}

/** A table's fields: each valid, names unique, at least one, at most one primary key. */
export function checkNewFields(fields: ReadonlyArray<NewField>): void {
  if (fields.length === 0) throw failedValidation('fields', 'A collection needs at least one field.');
  const names = new Set<string>();
  for (const field of fields) {
    checkNewField(field);
    if (names.has(field.field))
      throw failedValidation(field.field, `Field "${field.field}" is listed twice.`);
    names.add(field.field);
  }
  if (fields.filter((field) => field.isPrimaryKey).length > 1) {
    throw failedValidation('fields', 'A collection has at most one primary key field.');
  }
}

export function checkNewField(field: NewField): void {
  if (!NAME.test(field.field)) {
    throw failedValidation(
      'field',
      'A field name is 1–63 letters, digits or "_", not starting with a digit.',
    );
  }
  if (SYSTEM_COLUMNS.has(field.field)) {
    throw failedValidation('field', `"${field.field}" is the name of a PostgreSQL system column.`);
  }
  // The type is typed, but it arrives from JSON: a value outside the list must not reach the SQL.
  if (!(FIELD_TYPES as ReadonlyArray<string>).includes(field.type) || (field.type as string) === 'unknown') {
    throw failedValidation(field.field, `Unknown field type "${String(field.type)}".`);
  }
  if (field.maxLength !== undefined) {
    if (field.type !== 'string')
      throw failedValidation(field.field, 'Only string fields have a maximum length.');
    if (!Number.isInteger(field.maxLength) || field.maxLength < 1 || field.maxLength > MAX_VARCHAR_LENGTH) {
      throw failedValidation(
        field.field,
        `The maximum length is an integer from 1 to ${MAX_VARCHAR_LENGTH}.`,
      );
    }
  }
  checkDefault(field);
}

/**
 * A default is printed into DDL as a string literal (DDL takes no parameters), so only values that print
 * plainly get that far; whether the text fits the type is then checked by PostgreSQL itself, as a bound
 * parameter, before the DDL runs (see PostgresSchemaEditor).
 */
function checkDefault(field: NewField): void {
  const value = field.defaultValue;
  if (value === undefined || value === null) return;
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw failedValidation(field.field, 'A default number must be finite.');
  }
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw failedValidation(field.field, 'A default cannot contain a NUL character.');
  }
  if (!['string', 'number', 'boolean'].includes(typeof value)) {
    throw failedValidation(field.field, 'A default is a string, a number or a boolean.');
  }
  // A cast to varchar(n) truncates instead of failing, so the length is checked here, in characters as
  // PostgreSQL counts them (code points, not UTF-16 units).
  const maxLength = field.maxLength ?? DEFAULT_STRING_LENGTH;
  if (field.type === 'string' && characterCount(String(value), maxLength) > maxLength) {
    throw failedValidation(field.field, `The default is longer than ${maxLength} characters.`);
  }
}
