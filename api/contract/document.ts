/**
 * The OpenAPI 3.1 document of the API, generated from the declared operations and their zod schemas
 * (zod converts them to JSON Schema 2020-12, the dialect OpenAPI 3.1 uses). Request schemas are converted as
 * their input type, answers as their output type; named answer schemas become `components/schemas`.
 * Each error status lists exactly the codes the operation can answer with, each with an example.
 */
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../domain/error-codes';
import { documentationUrl } from '../../domain/errors';
import { namedComponents } from './components';
import { errorCodesOf, retryClassOf, type Answer, type Operation, type Resource } from './operation';
import { API_EXAMPLES } from './examples';

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, OperationObject>> };
type OperationObject = Record<string, unknown> & { responses: Record<string, Record<string, unknown>> };

const API_VERSION = '1.0.0';
const COMPONENT_REF = '#/components/schemas/';

/** Drops what zod writes on a root schema but OpenAPI does not want inside a document. */
function embedded(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** zod names string checks JSON Schema has no format for (`endsWith` → `ends_with`); their `pattern` says it already. */
const ZOD_ONLY_FORMATS = new Set(['starts_with', 'ends_with', 'includes']);

function standardFormats({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (typeof jsonSchema.format === 'string' && ZOD_ONLY_FORMATS.has(jsonSchema.format)) delete jsonSchema.format;
}

function requestSchema(schema: z.ZodType): JsonSchema {
  return embedded(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', override: standardFormats }) as JsonSchema);
}

/**
 * Converts every named component and every other schema the document shows (answers, stream events, webhook
 * payloads) in one pass, so they refer to components by `$ref`. Returns the components and a lookup of each schema.
 */
function answerSchemas(schemas: readonly z.ZodType[]): { components: Record<string, JsonSchema>; of: (schema: z.ZodType) => JsonSchema } {
  const registry = z.registry<{ id: string }>();
  const idOf = new Map<z.ZodType, string>();
  for (const [id, schema] of namedComponents()) {
    registry.add(schema, { id });
    idOf.set(schema, id);
  }
  let anonymous = 0;
  for (const schema of schemas) {
    if (idOf.has(schema)) continue;
    const id = `answer-${++anonymous}`;
    registry.add(schema, { id });
    idOf.set(schema, id);
  }
  const converted = z.toJSONSchema(registry, { uri: (id) => `${COMPONENT_REF}${id}`, override: standardFormats }).schemas as Record<string, JsonSchema>;
  if (converted.__shared) throw new Error('An answer schema nests a schema with a global id; name it with component() instead');
  const components: Record<string, JsonSchema> = {};
  for (const id of namedComponents().keys()) components[id] = embedded(converted[id]!);
  return {
    components,
    of: (schema) => {
      const id = idOf.get(schema)!;
      return id.startsWith('answer-') ? embedded(converted[id]!) : { $ref: `${COMPONENT_REF}${id}` };
    },
  };
}

/** Every schema the operations' answers show: bodies, and the events of streams. */
function schemasOf(operations: readonly Operation[]): z.ZodType[] {
  return operations.flatMap((operation) => (Object.values(operation.answers) as Answer[]).flatMap((answer) => [...(answer.schema ? [answer.schema] : []), ...Object.values(answer.events ?? {})]));
}

function parameters(operation: Operation): JsonSchema[] {
  const list: JsonSchema[] = [];
  for (const [location, object] of [
    ['path', operation.params],
    ['query', operation.query],
  ] as const) {
    for (const [name, field] of Object.entries(object?.shape ?? {})) {
      const schema = requestSchema(field as z.ZodType);
      const { description, ...rest } = schema;
      list.push({
        name,
        in: location,
        required: location === 'path' || !(field as z.ZodType).safeParse(undefined).success,
        ...(description ? { description } : {}),
        schema: rest,
      });
    }
  }
  for (const [name, description] of Object.entries(operation.headers ?? {})) {
    list.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
  }
  return list;
}

function errorExample(code: ErrorCode, baseUrl: string): { summary: string; value: unknown } {
  const recorded = API_EXAMPLES.errors[code];
  return {
    summary: ERROR_CODES[code].description,
    value: { code, message: recorded?.message ?? ERROR_CODES[code].description, documentation: documentationUrl(baseUrl, code) },
  };
}

/** The error answers of an operation, one per status, each naming its codes. */
function errorResponses(operation: Operation, baseUrl: string): Record<string, JsonSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(operation)) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${ERROR_CODES[code].description}`).join('\n\n'),
      ...(status === 429 || status === 503 ? { headers: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } } } : {}),
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: `${COMPONENT_REF}ErrorResponse` }, { properties: { code: { enum: codes } } }] },
          examples: Object.fromEntries(codes.map((code) => [code, errorExample(code, baseUrl)])),
        },
      },
    };
  }
  return responses;
}

/** A body is optional where its schema takes `{}` (an absent body is read as `{}`). */
function requestBody(schema: z.ZodType): JsonSchema {
  return { required: !schema.safeParse({}).success, content: { 'application/json': { schema: requestSchema(schema) } } };
}

const SECURITY: Record<Operation['access'], JsonSchema[]> = {
  public: [],
  read: [{ apiKey: [] }],
  write: [{ apiKey: [] }],
  admin: [{ apiKey: [] }],
  partner: [{ apiKey: [] }, { partnerBasic: [] }],
};

const ACCESS_NOTE: Record<Operation['access'], string> = {
  public: 'No key needed.',
  read: 'Any API key.',
  write: 'A key with the `write` (or `admin`) scope.',
  admin: 'A key with the `admin` scope.',
  partner: "The partner-scoped key the issuer gave the brokerage, as `x-api-key` or as HTTP basic credentials (the key's id and secret).",
};

/** A webhook event as the document's `webhooks` section shows it: what it says, and its body's schema. */
export interface WebhookEventDocument {
  description: string;
  schema: z.ZodType;
}

export interface DocumentOptions {
  /** The base URL clients reach; error documentation links point under it. */
  baseUrl: string;
  /** The webhook events an endpoint can receive, by type. */
  webhooks?: Record<string, WebhookEventDocument>;
}

/** The Standard Webhooks headers of every delivery. */
const WEBHOOK_HEADERS: Record<string, string> = {
  'webhook-id': 'The event id, `evt_<sequence>`: the same in every attempt and replay of the event, so a receiver deduplicates by it.',
  'webhook-timestamp': 'When this attempt was signed, in Unix seconds; refuse one too far from now (standardwebhooks allows five minutes).',
  'webhook-signature':
    '`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<body>` under the endpoint\'s secret; two, space-separated, for a day after a secret rotation (one by each secret).',
};

/** The `webhooks` section: one entry per event type, a POST of its envelope with the signature headers. */
function webhookSection(webhooks: Record<string, WebhookEventDocument>, schemaOf: (schema: z.ZodType) => JsonSchema): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(webhooks).map(([type, event]) => [
      type,
      {
        post: {
          tags: ['Webhooks'],
          summary: type,
          description: `${event.description}\n\nDelivered at least once, in order per resource; answer 2xx within the timeout, or it is retried.`,
          parameters: Object.entries(WEBHOOK_HEADERS).map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } })),
          requestBody: { required: true, content: { 'application/json': { schema: schemaOf(event.schema) } } },
          responses: {
            '2XX': { description: 'Received: the delivery is done.' },
            '410': { description: 'Gone: the endpoint is disabled at once (its owner enables it again).' },
          },
        },
      },
    ]),
  );
}

export function buildOpenApiDocument(resources: readonly Resource[], options: DocumentOptions): OpenApiDocument {
  const operations = resources.flatMap((resource) => resource.operations);
  const webhooks = options.webhooks ?? {};
  const answers = answerSchemas([...schemasOf(operations), ...Object.values(webhooks).map((event) => event.schema)]);
  const paths: OpenApiDocument['paths'] = {};
  for (const operation of operations) {
    const resource = resources.find((candidate) => candidate.operations.includes(operation))!;
    const success: Record<string, JsonSchema> = {};
    for (const [status, answer] of Object.entries(operation.answers) as [string, Answer][]) {
      const example = API_EXAMPLES.answers[operation.operationId]?.[status];
      success[status] = {
        description: answer.description,
        ...(answer.headers
          ? { headers: Object.fromEntries(Object.entries(answer.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }])) }
          : {}),
        ...(answer.schema ? { content: { [answer.contentType ?? 'application/json']: { schema: answers.of(answer.schema), ...(example === undefined ? {} : { example }) } } } : {}),
        ...(answer.contentType && !answer.schema ? { content: { [answer.contentType]: { schema: { type: 'string' } } } } : {}),
        ...(answer.events ? { 'x-event-schemas': Object.fromEntries(Object.entries(answer.events).map(([name, schema]) => [name, answers.of(schema)])) } : {}),
      };
    }
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method] = {
      operationId: operation.operationId,
      tags: [resource.tag],
      summary: operation.summary,
      description: [operation.description, ACCESS_NOTE[operation.access]].filter(Boolean).join('\n\n'),
      security: SECURITY[operation.access],
      ...(operation.params || operation.query || operation.headers ? { parameters: parameters(operation) } : {}),
      ...(operation.body ? { requestBody: requestBody(operation.body) } : {}),
      responses: { ...success, ...errorResponses(operation, options.baseUrl) },
      'x-retry': retryClassOf(operation),
    };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Tokenized stock issuer API',
      version: API_VERSION,
      description:
        'Prices, market data, candles, corporate actions, contract addresses, limits and statuses of tokenized stocks; signed mint and redeem attestations and soft quotes; the brokerage partner in-kind flow; operator routes. Amounts and prices are decimal strings; `timestamp` fields are Unix epoch milliseconds. Every failure is an `ErrorResponse`.',
    },
    servers: [{ url: options.baseUrl }],
    tags: resources.map(({ tag, description }) => ({ name: tag, description })),
    paths,
    ...(Object.keys(webhooks).length > 0 ? { webhooks: webhookSection(webhooks, answers.of) } : {}),
    components: {
      schemas: answers.components,
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The API key the operator issued; its scope (read, write, admin, partner) decides what it may call.' },
        partnerBasic: { type: 'http', scheme: 'basic', description: "Partner routes only: the partner key's id as user name and its secret as password." },
      },
    },
  };
}
