import { type ZodType, z } from 'zod';
import type { JsonSchema } from './openapi-types.ts';

type Metadata = Record<string, unknown> & { id?: string };

/**
 * The names of one document's shared schemas, layered over zod's global registry so that descriptions
 * given with `.describe()` or `.meta()` still reach the output. Names live only as long as the document:
 * collection names come and go with the live schema, and the global registry would keep every one ever seen.
 */
class DocumentRegistry extends z.core.$ZodRegistry<Metadata> {
  override get(schema: z.core.$ZodType): Metadata | undefined {
    const global = z.globalRegistry.get(schema);
    const own = super.get(schema);
    return global || own ? { ...global, ...own } : undefined;
  }
}

const DEFS = '#/$defs/';
const COMPONENTS = '#/components/schemas/';

/**
 * Writes zod schemas as the document's JSON Schema (OpenAPI 3.1 is JSON Schema 2020-12), collecting the
 * named ones into `components.schemas` and referring to them there.
 */
export class DocumentSchemas {
  readonly components: Record<string, JsonSchema> = {};
  private readonly registry = new DocumentRegistry();

  /** `schema` is written once, as `components.schemas[name]`, wherever it is used. */
  name(name: string, schema: ZodType): void {
    this.registry.add(schema, { id: name });
  }

  /** A request body or parameter as the route accepts it (`input`), or an answer as sent (`output`). */
  write(schema: ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema, $defs, ...json } = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      metadata: this.registry,
      io,
    }) as JsonSchema & { $schema?: string; $defs?: Record<string, JsonSchema> };
    for (const [name, def] of Object.entries($defs ?? {})) this.components[name] = pointedAtComponents(def);
    return pointedAtComponents(json);
  }
}

/** zod refers to `#/$defs/<name>`; the document keeps them in `components.schemas`. */
function pointedAtComponents(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(DEFS)
      ? COMPONENTS + value.slice(DEFS.length)
      : value,
  );
}
