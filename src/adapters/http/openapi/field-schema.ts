import type { FieldType } from '../../../domain/schema/field-type.ts';
import type { JsonSchema, JsonType } from './openapi-types.ts';

export type FieldShape = { type: FieldType; dbType: string; maxLength: number | null };

/**
 * A column's values as JSON Schema, in the forms docs/api.md §4 answers them. Values without a zone (`timestamp`,
 * `time`) get no `format`: RFC 3339's date-time and time require an offset, which these never carry.
 */
export function fieldSchema({ type, dbType, maxLength }: FieldShape): JsonSchema {
  switch (type) {
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'string':
      return maxLength === null ? { type: 'string' } : { type: 'string', maxLength };
    case 'text':
      return { type: 'string' };
    case 'integer':
      return dbType === 'smallint'
        ? { type: 'integer', minimum: -32768, maximum: 32767 }
        : { type: 'integer', format: 'int32' };
    case 'bigInteger':
      return {
        type: ['integer', 'string'],
        format: 'int64',
        pattern: '^-?[0-9]+$',
        description: 'A number within ±(2^53 − 1), else its digits as a string (a double cannot hold it).',
      };
    case 'float':
      return { type: 'number', format: dbType === 'real' ? 'float' : 'double' };
    case 'decimal':
      return {
        type: ['number', 'string'],
        description: 'A number when a double holds the value exactly, else the exact decimal text.',
      };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return {
        type: 'string',
        description: 'Date and time without a zone, YYYY-MM-DDThh:mm:ss (a fraction only when stored).',
        examples: ['2024-01-10T08:00:00'],
      };
    case 'dateTime':
      return { type: 'string', format: 'date-time' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'time':
      return {
        type: 'string',
        description: 'hh:mm:ss (a fraction only when stored).',
        examples: ['08:30:00'],
      };
    case 'json':
      return { description: 'Any JSON value.' };
    case 'array':
      return { type: 'array', description: `A ${dbType} value: its elements in their own JSON forms.` };
    case 'unknown':
      return { type: 'string', description: `The database's text of a ${dbType} value; read only.` };
  }
}

/**
 * The schema that also allows null: OpenAPI 3.1 has no `nullable`, null is one more type. A schema without
 * a type (any JSON value) allows null already.
 */
export function orNull(schema: JsonSchema): JsonSchema {
  if (schema.type === undefined) return schema;
  const types: JsonType[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  return { ...schema, type: [...types, 'null'] };
}
