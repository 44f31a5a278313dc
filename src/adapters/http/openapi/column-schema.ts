import { type ZodType, z } from 'zod';
import type { ElementSchema } from '../../../domain/schema/collection-schema.ts';
import type { FieldType } from '../../../domain/schema/field-type.ts';

export type ColumnShape = {
  type: FieldType;
  dbType: string;
  maxLength: number | null;
  choices?: ReadonlyArray<string>;
  element?: ElementSchema;
};

const BIG_INTEGER_TEXT = /^-?[0-9]+$/;

/** A date's or timestamp's ±infinity, as the API writes it (docs/api.md §4). */
const INFINITE = z.enum(['infinity', '-infinity']);

/**
 * A column's values in the forms docs/api.md §4 answers and accepts them. Values without a zone
 * (`timestamp`, `time`) get no `format`: RFC 3339's date-time and time require an offset, which these
 * never carry; an example shows their form instead.
 */
export function columnSchema({ type, dbType, maxLength, choices, element }: ColumnShape): ZodType {
  if (choices) return z.enum([...choices]).describe(`A label of the ${dbType} enum.`);
  switch (type) {
    case 'uuid':
      return z.guid();
    case 'string':
      return maxLength === null ? z.string() : z.string().max(maxLength);
    case 'text':
      return z.string();
    case 'integer':
      return dbType === 'smallint' ? z.int().min(-32768).max(32767) : z.int32();
    case 'bigInteger':
      return z
        .union([z.int(), z.string().regex(BIG_INTEGER_TEXT)])
        .describe('A number within ±(2^53 − 1), else its digits as a string (a double cannot hold it).');
    case 'float':
      return z
        .union([dbType === 'real' ? z.float32() : z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])])
        .describe(
          'A number; the values no JSON number can be as the strings `NaN`, `Infinity`, `-Infinity`.',
        );
    case 'decimal':
      return z
        .union([z.number(), z.string()])
        .describe(
          'A number when a double holds the value exactly, else the exact decimal text; `NaN`, `Infinity`, `-Infinity` as strings.',
        );
    case 'boolean':
      return z.boolean();
    case 'timestamp':
      return z
        .string()
        .meta({ examples: ['2024-01-10T08:00:00'] })
        .describe(
          'Date and time without a zone, YYYY-MM-DDThh:mm:ss (a fraction only when stored), or `infinity`, `-infinity`.',
        );
    case 'dateTime':
      return z.union([z.iso.datetime({ offset: true }), INFINITE]);
    case 'date':
      return z.union([z.iso.date(), INFINITE]);
    case 'time':
      return z
        .string()
        .meta({ examples: ['08:30:00'] })
        .describe('hh:mm:ss (a fraction only when stored).');
    case 'json':
      return z.unknown().describe('Any JSON value.');
    case 'array':
      return z
        .array(element ? columnSchema(element) : z.unknown())
        .describe(`A ${dbType} value: its elements in their own JSON forms.`);
    case 'unknown':
      return z.string().describe(`The database's text of a ${dbType} value; read only.`);
  }
}

/** The column's schema, allowing null where asked; any JSON value allows null already. */
export function nullableWhen(schema: ZodType, type: FieldType, nullable: boolean): ZodType {
  return nullable && type !== 'json' ? schema.nullable() : schema;
}

/** The schema with a note added to its description. */
export function noted(schema: ZodType, note: string): ZodType {
  const description = schema.description;
  return schema.describe(description ? `${description} ${note}` : note);
}
