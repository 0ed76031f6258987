/**
 * The OpenAPI document's named schemas: each registered where it is defined, with its component
 * name and an example (zod 4 registry metadata). A registry of its own rather than `.meta()`:
 * `.meta()` returns a clone, so a view embedding the original would lose its `$ref`, and its
 * examples would be written into every JSON Schema derived from it.
 */
import { z } from 'zod';

export const components = z.registry<{ id: string; example?: unknown }>();

/** `schema` itself, named `id` in the document, with the example Swagger's "Try it out" starts from. */
export function component<T extends z.ZodType>(id: string, schema: T, example?: unknown): T {
  components.add(schema, { id, example });
  return schema;
}

export const exampleOf = (schema: z.ZodType): unknown => components.get(schema)?.example;
