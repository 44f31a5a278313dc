/**
 * The parts of OpenAPI 3.1 (and its JSON Schema 2020-12 dialect) the document is made of, as written out.
 * Loose on purpose: the schemas are zod's output, and the document is checked against the specification
 * by a validator and by Redocly's lint in the tests, not by these types.
 */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export type JsonSchema = {
  $ref?: string;
  type?: JsonType | JsonType[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: ReadonlyArray<unknown>;
  const?: unknown;
  default?: unknown;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  description?: string;
  examples?: unknown[];
};

export type Parameter = {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
};

export type Reference = { $ref: string };

export type MediaContent = Record<string, { schema: JsonSchema }>;

export type Response = {
  description: string;
  headers?: Record<string, { description?: string; schema: JsonSchema }>;
  content?: MediaContent;
};

export type Operation = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: MediaContent };
  responses: Record<string, Response | Reference>;
  /** An empty list: the operation ignores tokens. */
  security?: Array<Record<string, string[]>>;
};

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

export type PathItem = Partial<Record<HttpMethod, Operation>>;

export type SecurityScheme =
  | { type: 'http'; scheme: 'bearer'; bearerFormat?: string; description?: string }
  | { type: 'apiKey'; in: 'query'; name: string; description?: string };

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: {
    title: string;
    version: string;
    description: string;
    license: { name: string; identifier: string };
    /** Whether realtime subscribers are sent changes (docs/api.md §7, "Server"). */
    'x-realtime': boolean;
  };
  servers: Array<{ url: string; description?: string }>;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, Response>;
    securitySchemes: Record<string, SecurityScheme>;
  };
  security: Array<Record<string, string[]>>;
};
