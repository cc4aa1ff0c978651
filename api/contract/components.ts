/**
 * Named response schemas: a schema passed through `component` appears once under `components/schemas` in the
 * OpenAPI document and is referenced wherever an answer uses it. The shared `ErrorResponse` lives here too.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../domain/error-codes';

const named = new Map<string, z.ZodType>();

/** Registers `schema` as the component `id` (PascalCase, unique) and returns it unchanged. */
export function component<T extends z.ZodType>(id: string, schema: T): T {
  const existing = named.get(id);
  if (existing && existing !== schema) throw new Error(`Two schemas are named ${id}`);
  named.set(id, schema);
  return schema;
}

/** Every named schema, by id. */
export function namedComponents(): ReadonlyMap<string, z.ZodType> {
  return named;
}

const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** Every error answer's schema; the document refers to it by name. */
component(
  'ErrorResponse',
  z
    .object({
      code: z.enum(ERROR_CODE_LIST).describe('The contract: one of a closed set, each with one HTTP status.'),
      message: z.string().describe('Descriptive; names the offending field where there is one.'),
      documentation: z.url().describe("The code's entry in the error reference (`/docs/errors#<lowercase code>`)."),
    })
    .describe('Every failure has this shape.'),
);
