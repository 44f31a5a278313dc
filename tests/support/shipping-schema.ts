import type { NewField, SchemaEditor } from '../../src/application/ports/schema-catalog.ts';

/**
 * The relations specification's example (docs/api.md §4, nested reads): customers ← shipments ← cargos.
 * A shipment points at its customer, a cargo at its shipment; shipments read their `cargos`, customers
 * their `shipments`. `customers.secret` and `cargos.secret` are for field masks at a hop.
 */
export const SHIPPING_COLLECTIONS: ReadonlyArray<{ name: string; fields: NewField[] }> = [
  {
    name: 'customers',
    fields: [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'name', type: 'string' },
      { field: 'secret', type: 'string' },
    ],
  },
  {
    name: 'shipments',
    fields: [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'number', type: 'string' },
      { field: 'customer', type: 'integer' },
    ],
  },
  {
    name: 'cargos',
    fields: [
      { field: 'id', type: 'integer', isPrimaryKey: true },
      { field: 'label', type: 'string' },
      { field: 'weight', type: 'float' },
      { field: 'secret', type: 'string' },
      { field: 'shipment', type: 'integer' },
    ],
  },
];

/** Rows: two customers, three shipments (one without customer), five cargos (one without shipment). */
export const SHIPPING_ROWS = {
  customers: [
    { id: 1, name: 'ACME', secret: 'acme-secret' },
    { id: 2, name: 'Globex', secret: 'globex-secret' },
  ],
  shipments: [
    { id: 1, number: 'S-1', customer: 1 },
    { id: 2, number: 'S-2', customer: 2 },
    { id: 3, number: 'S-3', customer: null },
  ],
  cargos: [
    { id: 1, label: 'apples', weight: 3, secret: 'c1', shipment: 1 },
    { id: 2, label: 'bolts', weight: 8, secret: 'c2', shipment: 1 },
    { id: 3, label: 'cables', weight: 12, secret: 'c3', shipment: 2 },
    { id: 4, label: 'drums', weight: 6, secret: 'c4', shipment: 2 },
    { id: 5, label: 'eggs', weight: 1, secret: 'c5', shipment: null },
  ],
} as const;

/** Creates the three collections and their two foreign keys. */
export async function createShippingSchema(editor: SchemaEditor): Promise<void> {
  for (const { name, fields } of SHIPPING_COLLECTIONS) await editor.createCollection(name, fields);
  await editor.createRelation({ collection: 'shipments', field: 'customer', relatedCollection: 'customers' });
  await editor.createRelation({ collection: 'cargos', field: 'shipment', relatedCollection: 'shipments' });
}
