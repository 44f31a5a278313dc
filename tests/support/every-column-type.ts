import type { NewField } from '../../src/domain/schema/new-field.ts';

/**
 * One nullable column of every modelled type behind an integer key, for the contracts' round-trip and
 * formatting tests (their rows name these fields).
 */
export const EVERY_COLUMN_TYPE: ReadonlyArray<NewField> = [
  { field: 'id', type: 'integer', isPrimaryKey: true },
  { field: 'key', type: 'uuid' },
  { field: 'label', type: 'string' },
  { field: 'body', type: 'text' },
  { field: 'small', type: 'integer' },
  { field: 'big', type: 'bigInteger' },
  { field: 'ratio', type: 'float' },
  { field: 'price', type: 'decimal' },
  { field: 'flag', type: 'boolean' },
  { field: 'at', type: 'timestamp' },
  { field: 'instant', type: 'dateTime' },
  { field: 'day', type: 'date' },
  { field: 'clock', type: 'time' },
  { field: 'doc', type: 'json' },
];
