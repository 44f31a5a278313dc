import { z } from 'zod';
import type { PermissionAction } from '../../domain/permissions/permission.ts';
import type { ApiContext, ApiOperation, ApiPart } from './openapi/api-operation.ts';

const fileRow = z
  .object({
    id: z.uuid(),
    filename_disk: z
      .string()
      .nullable()
      .describe('Where the bytes are stored (`files/<id>`); null: none yet.'),
    filename_download: z.string().describe('The name a download is saved under.'),
    title: z.string().nullable(),
    type: z.string().nullable().describe('The media type, as sniffed from the bytes.'),
    filesize: z.union([z.int(), z.string()]).nullable().describe('In bytes.'),
    width: z.int().nullable(),
    height: z.int().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable().describe('Any JSON object.'),
    checksum: z.string().nullable().describe("The bytes' SHA-256 in hex: the asset's ETag."),
    uploaded_by: z.uuid().nullable(),
    uploaded_on: z.string().nullable(),
    modified_by: z.uuid().nullable(),
    modified_on: z.string().nullable(),
  })
  .partial()
  .describe('A file (docs/api.md §15): the fields the caller may read.');

const fileWrite = z
  .object({
    filename_download: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  })
  .partial()
  .describe('The metadata of a file; the server sets its id and what it learns of the bytes.');

const id = { id: z.string().describe("The file's id.") };

/** `/assets` query: `download`, and an image transform (docs/api.md §15, decision 0039). */
const assetQuery = z.object({
  download: z.string().optional().describe('Present: `Content-Disposition: attachment`.'),
  width: z
    .string()
    .optional()
    .describe('Variant width in pixels: a whole number, 1 to `storage.transforms.maxDimension`.'),
  height: z
    .string()
    .optional()
    .describe('Variant height in pixels: a whole number, 1 to `storage.transforms.maxDimension`.'),
  fit: z
    .enum(['cover', 'contain', 'inside', 'outside'])
    .optional()
    .describe('How the image meets a `width` × `height` box (`cover` by default); only with both.'),
  format: z
    .enum(['jpeg', 'png', 'webp', 'avif', 'tiff', 'auto'])
    .optional()
    .describe(
      "The variant's format; `auto`: AVIF when `Accept` names `image/avif`, else WebP when it names `image/webp`, else the original's (answered with `Vary: Accept`).",
    ),
  quality: z.string().optional().describe('1 to 100, lossy formats only.'),
  withoutEnlargement: z.enum(['true', 'false']).optional().describe('`true`: never scale up.'),
  key: z
    .string()
    .optional()
    .describe('A preset of `storage.transforms.presets`; not combined with the other transform parameters.'),
});
const keys = z
  .union([z.array(z.string()), z.object({ keys: z.array(z.string()) })])
  .describe('The ids of the files.');

/**
 * The OpenAPI part of /files and /assets (docs/api.md §15): each operation only to a caller whose permissions
 * on the files collection allow its action, as the items' operations are (reading the bytes is reading the row).
 */
export function filesApi({ description }: ApiContext): ApiPart {
  const operations: Array<[PermissionAction, ApiOperation]> = [
    [
      'read',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'get',
        path: '/files',
        operationId: 'listFiles',
        summary: 'List files',
        description: 'The files the caller may read, with the item query language (docs/api.md §4).',
        answers: [{ status: 200, description: 'The files.', body: z.array(fileRow), form: 'list' }],
        errors: [400, 401, 403],
      },
    ],
    [
      'create',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'post',
        path: '/files',
        operationId: 'uploadFiles',
        summary: 'Upload files',
        description:
          'A `multipart/form-data` upload: metadata fields, then a file; more files may follow, each after its own fields. All files or none are stored. A JSON body instead creates rows without bytes.',
        body: z.union([fileWrite, z.array(fileWrite)]),
        answers: [{ status: 200, description: 'The file, or the files when several.', body: fileRow }],
        errors: [400, 401, 403, 413, 415],
      },
    ],
    [
      'update',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'patch',
        path: '/files',
        operationId: 'updateFiles',
        summary: 'Update files',
        body: z.object({ keys: z.array(z.string()), data: fileWrite }),
        answers: [{ status: 200, description: 'The files.', body: z.array(fileRow) }],
        errors: [400, 401, 403, 404],
      },
    ],
    [
      'delete',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'delete',
        path: '/files',
        operationId: 'deleteFiles',
        summary: 'Delete files',
        description: 'The rows, their bytes and their variants.',
        body: keys,
        answers: [{ status: 204, description: 'Deleted.' }],
        errors: [400, 401, 403, 404],
      },
    ],
    [
      'read',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'get',
        path: '/files/:id',
        operationId: 'getFile',
        summary: 'Read a file',
        pathParameters: id,
        answers: [{ status: 200, description: 'The file.', body: fileRow }],
        errors: [400, 401, 403, 404],
      },
    ],
    [
      'update',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'patch',
        path: '/files/:id',
        operationId: 'updateFile',
        summary: 'Update a file',
        description:
          'JSON metadata; or a `multipart/form-data` upload of metadata fields and one file, which replaces the bytes.',
        pathParameters: id,
        body: fileWrite,
        answers: [{ status: 200, description: 'The file.', body: fileRow }],
        errors: [400, 401, 403, 404, 413, 415],
      },
    ],
    [
      'delete',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'delete',
        path: '/files/:id',
        operationId: 'deleteFile',
        summary: 'Delete a file',
        description: 'The row, its bytes and its variants.',
        pathParameters: id,
        answers: [{ status: 204, description: 'Deleted.' }],
        errors: [401, 403, 404],
      },
    ],
    [
      'read',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'get',
        path: '/assets/:id',
        operationId: 'readAsset',
        summary: "Read a file's bytes",
        description:
          "For a caller who may read the file's row. `Range` (one range: 206; `If-Range` with the ETag), `If-Match` / `If-Unmodified-Since` (412 when they fail), `If-None-Match` / `If-Modified-Since` (304), `download` for an attachment. Served with `Content-Security-Policy: sandbox` and `X-Content-Type-Options: nosniff`. Transform parameters ask for an image variant, made once and stored, with its own `ETag`: 400 `INVALID_QUERY` with `reason` `UNSUPPORTED_IMAGE` (not a transformable image) or `IMAGE_TOO_LARGE`; 503 `SERVICE_UNAVAILABLE` with `reason` `TRANSFORMS_BUSY` and `Retry-After` when the transform queue is full.",
        pathParameters: id,
        query: assetQuery,
        answers: [
          { status: 200, description: 'The bytes.', body: z.string(), form: 'binary' },
          { status: 206, description: 'The range asked for.', body: z.string(), form: 'binary' },
          { status: 304, description: 'Not modified.' },
        ],
        errors: [400, 401, 403, 404, 412, 416],
      },
    ],
    [
      'read',
      {
        audience: 'anyone',
        tag: 'files',
        method: 'get',
        path: '/assets/:id/:filename',
        operationId: 'readNamedAsset',
        summary: "Read a file's bytes under a name",
        description: "As `/assets/:id`; the name is the URL's only.",
        pathParameters: { ...id, filename: z.string().describe('Any name.') },
        query: assetQuery,
        answers: [
          { status: 200, description: 'The bytes.', body: z.string(), form: 'binary' },
          { status: 206, description: 'The range asked for.', body: z.string(), form: 'binary' },
          { status: 304, description: 'Not modified.' },
        ],
        errors: [400, 401, 403, 404, 412, 416],
      },
    ],
  ];
  return {
    tags: [{ name: 'files', description: 'Files: their rows, governed like items, and their bytes.' }],
    operations: operations
      .filter(([action]) => description.files[action])
      .map(([, operation]) => operation)
      // Naming a file by `id` needs `id` queryable; its bytes need only the row (docs/api.md §15).
      .filter((operation) => !(description.filesKeyHidden && operation.path === '/files/:id')),
  };
}
