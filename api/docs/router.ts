/**
 * The documents that describe the API, served without a key: the error reference every error's `documentation`
 * URL points into, and the OpenAPI document generated from the declared operations.
 */
import { z } from 'zod';
import { defineOperation, type Resource } from '../contract/operation';
import type { OpenApiDocument } from '../contract/document';
import { errorReference } from './error-reference';

const errorReferenceOperation = defineOperation({
  method: 'get',
  path: '/docs/errors',
  operationId: 'getErrorReference',
  summary: 'Error reference',
  description: 'Every error code with its HTTP status and meaning; each row is anchored by the lowercase code.',
  access: 'public',
  answers: { 200: { description: 'An HTML page.', contentType: 'text/html' } },
  errors: [],
  handler: () => errorReference(),
});

/** `document` gives the OpenAPI document for the base URL clients reach. */
export function docsResource(document: (baseUrl: string) => OpenApiDocument): Resource {
  const openApiOperation = defineOperation({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    description: 'Generated from the schemas that validate requests and shape answers; feed it to a client generator.',
    access: 'public',
    answers: { 200: { description: 'An OpenAPI 3.1 document.', schema: z.looseObject({ openapi: z.string().startsWith('3.1.'), paths: z.record(z.string(), z.unknown()) }) } },
    errors: [],
    handler: (services) => {
      const body = JSON.stringify(document(services.config.PUBLIC_BASE_URL));
      return (ctx) => {
        ctx.set('Cache-Control', 'public, max-age=300');
        ctx.type = 'application/json';
        ctx.body = body;
      };
    },
  });
  return { tag: 'Documentation', description: 'The documents that describe this API; no key needed.', operations: [errorReferenceOperation, openApiOperation] };
}
