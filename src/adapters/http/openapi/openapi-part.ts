import type { ApiDescription } from '../../../application/server/describe-api.ts';
import type { JsonSchema, Operation, PathItem } from './openapi-types.ts';
import type { ProfileShapes } from './profile-shapes.ts';

/** What one area adds to the OpenAPI document: its tags, its operations and the schemas they name. */
export type OpenApiPart = {
  tags?: string[];
  paths: Record<string, PathItem>;
  schemas?: Record<string, JsonSchema>;
};

/** What a part is written from: what the caller may do with the live schema, and the response profile. */
export type OpenApiContext = { description: ApiDescription; shapes: ProfileShapes };

export const schemaRef = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

export const jsonBody = (schema: JsonSchema): NonNullable<Operation['requestBody']> => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** The `security` of an operation that ignores tokens. */
export const NO_TOKEN: NonNullable<Operation['security']> = [];
