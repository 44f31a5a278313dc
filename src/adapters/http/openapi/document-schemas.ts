import { type ZodType, z } from 'zod';
import type { JsonSchema, Response } from './openapi-types.ts';

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

/** A schema as written, and the named schemas it refers to. */
type Written = { json: JsonSchema; defs: Record<string, JsonSchema> };

/**
 * Every schema written, kept for the next document: zod takes about a millisecond a schema, and a document
 * has hundreds. Sound because a schema object is always written alike: the areas' fixed schemas are given
 * the same names by the same code for every document, and those of the live collections are made anew
 * whenever the collection, its component name or the limits change (item-operations.ts keeps them by
 * all three), so a schema object found here was written under the same names.
 */
const WRITTEN = { input: new WeakMap<ZodType, Written>(), output: new WeakMap<ZodType, Written>() };

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
    let written = WRITTEN[io].get(schema);
    if (!written) {
      const {
        $schema,
        $defs = {},
        ...json
      } = z.toJSONSchema(schema, {
        target: 'draft-2020-12',
        metadata: this.registry,
        io,
      }) as JsonSchema & { $schema?: string; $defs?: Record<string, JsonSchema> };
      written = { json: pointedAtComponents(json), defs: pointedAtComponents($defs) };
      WRITTEN[io].set(schema, written);
    }
    Object.assign(this.components, written.defs);
    return written.json;
  }

  /** An answer's headers, each schema written as sent. */
  headers(headers: Record<string, { description: string; schema: ZodType }>): Response['headers'] {
    return Object.fromEntries(
      Object.entries(headers).map(([name, header]) => [
        name,
        { description: header.description, schema: this.write(header.schema, 'output') },
      ]),
    );
  }
}

/** zod refers to `#/$defs/<name>`; the document keeps them in `components.schemas`. */
function pointedAtComponents<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(DEFS)
      ? COMPONENTS + value.slice(DEFS.length)
      : value,
  );
}
