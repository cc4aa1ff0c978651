/**
 * Every operation the API serves, by resource, in matching order, and the OpenAPI document generated from them.
 */
import { buildOpenApiDocument, type OpenApiDocument } from './contract/document';
import type { Resource } from './contract/operation';
import { docsResource } from './docs/router';
import { healthResource } from './health/router';
import { accountsResource } from './v1/accounts/router';
import { assetsResource } from './v1/assets/router';
import { attestationsResource } from './v1/attestations/router';
import { chainsResource } from './v1/chains/router';
import { limitsResource } from './v1/limits/router';
import { marketDataResource } from './v1/market-data/router';
import { reservesResource } from './v1/reserves/router';
import { statusResource } from './v1/status/router';
import { streamsResource } from './v1/streams/router';
import { tickersResource } from './v1/tickers/router';
import { tokenizationResource } from './v1/tokenization/router';
import { WEBHOOK_EVENT_DOCUMENTS, webhooksResource } from './v1/webhooks/router';
import { workflowsResource } from './v1/workflows/router';

const documents = new Map<string, OpenApiDocument>();

/** The OpenAPI document as clients at `baseUrl` see it (built once per base URL). */
export function openApiDocument(baseUrl: string): OpenApiDocument {
  let document = documents.get(baseUrl);
  if (!document) {
    document = buildOpenApiDocument(API_RESOURCES, { baseUrl, webhooks: WEBHOOK_EVENT_DOCUMENTS });
    documents.set(baseUrl, document);
  }
  return document;
}

/** Mounted in this order; the document lists the resources (its tags) in it too. */
export const API_RESOURCES: readonly Resource[] = [
  healthResource,
  docsResource(openApiDocument),
  assetsResource,
  streamsResource,
  tickersResource,
  chainsResource,
  attestationsResource,
  limitsResource,
  statusResource,
  tokenizationResource,
  accountsResource,
  marketDataResource,
  reservesResource,
  workflowsResource,
  webhooksResource,
];
