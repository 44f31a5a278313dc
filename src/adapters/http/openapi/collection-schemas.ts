import type { DescribedCollection, DescribedField } from '../../../application/server/describe-api.ts';
import { fieldSchema, orNull } from './field-schema.ts';
import type { JsonSchema } from './openapi-types.ts';

/**
 * An item as the caller reads it: only the fields the caller may read. No field is required, since
 * `fields` narrows the answer; a field shown on some rows only reads as null on the others.
 */
export function itemSchema(collection: DescribedCollection): JsonSchema {
  return objectOf(
    collection.fields.filter((field) => field.read),
    (field) => {
      const schema = valueSchema(field, field.nullable || field.readOnSomeRowsOnly);
      if (field.setByServer) return described(schema, 'Set by the server.');
      if (field.readOnSomeRowsOnly) return described(schema, 'Null on the rows your permissions hide it on.');
      return schema;
    },
  );
}

/** A new item: the fields the caller may set; those nothing else fills are required. */
export function createSchema(collection: DescribedCollection): JsonSchema {
  const fields = collection.fields.filter((field) => field.create);
  const required = fields.filter((field) => field.requiredOnCreate).map((field) => field.name);
  return {
    ...objectOf(fields, (field) => {
      const schema = valueSchema(field, field.nullable);
      // PostgreSQL's expression, not a JSON value, so a note rather than `default`.
      return field.defaultValue === null
        ? schema
        : described(schema, `Database default: ${field.defaultValue}.`);
    }),
    ...(required.length > 0 ? { required } : {}),
  };
}

/** The fields an update may change, all optional; the key may be sent back but not changed. */
export function updateSchema(collection: DescribedCollection): JsonSchema {
  return objectOf(
    collection.fields.filter((field) => field.update),
    (field) => {
      const schema = valueSchema(field, field.nullable);
      return field.primaryKey ? described(schema, "The item's key: may be repeated, never changed.") : schema;
    },
  );
}

/** A key addressing one item. */
export function keySchema(key: NonNullable<DescribedCollection['primaryKey']>): JsonSchema {
  return fieldSchema({ ...key, maxLength: null });
}

function objectOf(
  fields: ReadonlyArray<DescribedField>,
  schemaOf: (field: DescribedField) => JsonSchema,
): JsonSchema {
  return {
    type: 'object',
    // Unknown fields are refused, and fields the caller may not use are forbidden.
    additionalProperties: false,
    properties: Object.fromEntries(fields.map((field) => [field.name, schemaOf(field)])),
  };
}

function valueSchema(field: DescribedField, nullable: boolean): JsonSchema {
  const schema = fieldSchema(field);
  return nullable ? orNull(schema) : schema;
}

function described(schema: JsonSchema, note: string): JsonSchema {
  return { ...schema, description: schema.description ? `${schema.description} ${note}` : note };
}
