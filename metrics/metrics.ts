/**
 * The product's own Prometheus metrics that code counts as things happen (prom-client's default registry, one per
 * process): HTTP requests, refusals of the access layer, open live streams, attestation outcomes, chain scans, calls
 * to the broker. What
 * is read from the database or the chains when scraped (partner requests, watcher lag, pool usage) is in
 * process-metrics.ts; the metrics endpoint (server.ts) serves both, and the Temporal SDK's own.
 */
import { Counter, Gauge, Histogram } from 'prom-client';

export const httpRequests = new Counter({
  name: 'issuer_http_requests_total',
  help: 'HTTP requests answered, by operation (the OpenAPI operationId; unmatched: none), method and status',
  labelNames: ['operation', 'method', 'status'] as const,
});

export const httpRequestDuration = new Histogram({
  name: 'issuer_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being set, by operation and method',
  labelNames: ['operation', 'method'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

export const failedAuthentications = new Counter({
  name: 'issuer_failed_authentications_total',
  help: 'Requests refused for a missing, unknown or revoked credential, by transport (http, grpc)',
  labelNames: ['transport'] as const,
});

export const rateLimitRefusals = new Counter({
  name: 'issuer_rate_limit_refusals_total',
  help: 'Requests refused 429 / RESOURCE_EXHAUSTED, by transport and policy (key: the per-key rate; failed-auth: an address out of failures; streams: too many streams)',
  labelNames: ['transport', 'policy'] as const,
});

export const openStreams = new Gauge({
  name: 'issuer_open_streams',
  help: 'Live streams open in this process, by transport (sse, grpc)',
  labelNames: ['transport'] as const,
});

export const attestationsCreated = new Counter({
  name: 'issuer_attestations_created_total',
  help: 'Attestations created (an idempotent replay is not counted again), by side',
  labelNames: ['side'] as const,
});

export const attestationsRefused = new Counter({
  name: 'issuer_attestations_refused_total',
  help: 'Attestation requests refused by a trading status, a limit or an exhausted Solana nonce pool (NONCE_POOL_EXHAUSTED), by error code',
  labelNames: ['code'] as const,
});

export const chainScanErrors = new Counter({
  name: 'issuer_chain_scan_errors_total',
  help: 'Chain watcher polls that failed (RPC or database errors, retried; halts), by chain',
  labelNames: ['chain'] as const,
});

/** The steps of a chain watcher's poll that `chainScanStepSeconds` times. */
export const CHAIN_SCAN_STEPS = ['read', 'record', 'deliver'] as const;
export type ChainScanStep = (typeof CHAIN_SCAN_STEPS)[number];

export const chainScanStepSeconds = new Histogram({
  name: 'issuer_chain_scan_step_seconds',
  help: "Time a chain watcher's poll spends in each step, by chain and step (read: the chain over RPC, checked against the stored blocks; record: the PostgreSQL transaction; deliver: the workflows told)",
  labelNames: ['chain', 'step'] as const,
  buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

export const chainReorganisations = new Counter({
  name: 'issuer_chain_reorganisations_total',
  help: 'Reorganisations a chain watcher undid, by chain',
  labelNames: ['chain'] as const,
});

export const chainReorganisedBlocks = new Counter({
  name: 'issuer_chain_reorganised_blocks_total',
  help: 'Blocks replaced by the reorganisations a chain watcher undid, by chain',
  labelNames: ['chain'] as const,
});

export const brokerCalls = new Counter({
  name: 'issuer_broker_calls_total',
  help: "Calls to the brokerage partner's API by outcome (ok, refused: a 4xx, server_error: a 5xx, unreachable: no answer)",
  labelNames: ['outcome'] as const,
});

export const solanaNonceRefills = new Counter({
  name: 'issuer_solana_nonce_refills_total',
  help: "Refills of the Solana nonce pool that found it short, by outcome (added: accounts created or found on chain and registered; unfunded: the issuer's SOL does not pay their rent; at_maximum: SOLANA_NONCE_POOL_MAX reached; failed: the ledger did not answer or refused)",
  labelNames: ['outcome'] as const,
});

export const solanaNonceAccountsAdded = new Counter({
  name: 'issuer_solana_nonce_accounts_added_total',
  help: 'Durable nonce accounts registered in the Solana pool by its refill, by how (created: made by this refill; found: existing on chain already)',
  labelNames: ['how'] as const,
});

export const solanaNonceAccountsSwept = new Counter({
  name: 'issuer_solana_nonce_accounts_swept_total',
  help: "Solana nonce accounts the pool's sweep freed after their attestation's expiry, their attestation's workflow not having done it",
});

export const webhookAttempts = new Counter({
  name: 'issuer_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome (delivered: a 2xx; failed: another status, no answer or a timeout; refused: the URL resolved to a forbidden address)',
  labelNames: ['outcome'] as const,
});

export const webhookDeliverySeconds = new Histogram({
  name: 'issuer_webhook_delivery_seconds',
  help: "Time from a webhook event's transaction to the receiver's 2xx, retries included",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3_600, 86_400],
});
