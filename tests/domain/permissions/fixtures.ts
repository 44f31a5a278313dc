import type { BoundFilterNode as FilterNode } from '../../../src/domain/query/filter.ts';
import type { CollectionSchema, FieldSchema } from '../../../src/domain/schema/collection-schema.ts';
import type { FieldType } from '../../../src/domain/schema/field-type.ts';

function field(name: string, type: FieldType, isPrimaryKey = false): FieldSchema {
  return {
    name,
    type,
    dbType: type,
    nullable: !isPrimaryKey,
    defaultValue: null,
    isPrimaryKey,
    isUnique: isPrimaryKey,
    hasDefault: false,
    maxLength: null,
  };
}

/** The seed's sample collection, plus an owner to write row rules with. */
export const CARGOS: CollectionSchema = {
  name: 'cargos',
  primaryKey: 'id',
  fields: [
    field('id', 'uuid', true),
    field('date_created', 'timestamp'),
    field('description', 'text'),
    field('temperature', 'float'),
    field('is_deleted', 'boolean'),
    field('owner', 'uuid'),
  ],
};

export const ALL_CARGO_FIELDS = CARGOS.fields.map((f) => f.name);

export const eq = (name: string, value: string | number | boolean): FilterNode => ({
  kind: 'condition',
  field: name,
  operator: '_eq',
  value,
});

export const or = (...nodes: FilterNode[]): FilterNode => ({ kind: 'or', nodes });
export const and = (...nodes: FilterNode[]): FilterNode => ({ kind: 'and', nodes });
