/**
 * The OpenAPI document we serve, read beside the reference issuer's schemas (test/compat/reference/): every field
 * our document declares in a shared operation's 200 is one the reference names, but the few our specification adds.
 * With the answer check every test app runs (CHECK_ANSWERS=fail: nothing off the document leaves), this bounds what
 * a client of the reference can receive; reference-rest.test.ts checks the answers themselves.
 */
import { openApiDocument } from '../../api/resources';
import { TEST_BASE_URL } from '../support/api';
import { REFERENCE_SCHEMAS, SHARED } from './reference-schemas';

interface Node {
  $ref?: string;
  $defs?: Record<string, Node>;
  properties?: Record<string, Node | boolean>;
  items?: Node;
  allOf?: Node[];
  anyOf?: Node[];
  oneOf?: Node[];
}

const reference = REFERENCE_SCHEMAS as Record<string, Node>;
const document = openApiDocument(TEST_BASE_URL) as unknown as {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Node }> }> }>>;
  components: { schemas: Record<string, Node> };
};

// The suite's schemas refer to definitions.json (and, inside it, to its own $defs); the document to its components.
const referenceTarget = (ref: string): Node => reference[ref.split('#')[0] || 'definitions.json']!.$defs![ref.split('/').at(-1)!]!;
const documentTarget = (ref: string): Node => document.components.schemas[ref.split('/').at(-1)!]!;

/** Every property path a schema names ('.primaryMarket.price', '[].symbol'), through references, unions and arrays. */
function namedPaths(node: Node | boolean | undefined, target: (ref: string) => Node, prefix = '', into = new Set<string>()): Set<string> {
  if (typeof node !== 'object') return into;
  if (node.$ref) namedPaths(target(node.$ref), target, prefix, into);
  for (const part of [...(node.allOf ?? []), ...(node.anyOf ?? []), ...(node.oneOf ?? [])]) namedPaths(part, target, prefix, into);
  if (node.items) namedPaths(node.items, target, `${prefix}[]`, into);
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    if (child === false) continue;
    into.add(`${prefix}.${name}`);
    namedPaths(child, target, `${prefix}.${name}`, into);
  }
  return into;
}

/** Fields of ours a client of the reference never sees named: one our specification states, one of ours the README names. */
const OURS: Record<string, string[]> = {
  'GET /v1/assets/{symbol}/shares-multiplier': ['.history[].reason'],
  'GET /v1/status/assets': ['[].redeemOnly'],
};

test.each(SHARED.map((operation) => [operation.name, operation] as const))('%s: every field of its 200 is one the reference names', (name, operation) => {
  const [method, route] = name.split(' ') as [string, string];
  const ours = namedPaths(document.paths[route]![method.toLowerCase()]!.responses['200']!.content!['application/json']!.schema, documentTarget);
  const theirs = namedPaths(reference[`${operation.schema}.json`], referenceTarget);
  expect(ours.size).toBeGreaterThan(0);
  expect([...ours].filter((field) => !theirs.has(field))).toEqual(OURS[name] ?? []);
});
