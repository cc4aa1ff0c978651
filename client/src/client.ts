/**
 * The typed client of the issuer's API: `call(operationId, {params, body})` for every operation of the document,
 * its answer typed by the operation and its failures thrown as `IssuerApiError` (the operation's codes), retried where
 * the operation's retry class says it is safe (retry.ts), with one Idempotency-Key per logical call; groups name the
 * calls an integrator makes most (attestations, wallets, webhooks), and `streams` gives the SSE streams as async
 * iterators (streams.ts).
 */
import createFetchClient from 'openapi-fetch';
import { apiErrorOf, IssuerNetworkError, type ErrorCodeOf } from './errors.ts';
import type { operations, paths } from './generated/api.ts';
import { OPERATIONS, type OperationId } from './generated/operations.ts';
import { retryingFetch, type RetryPolicy } from './retry.ts';
import { priceStream, candleStream, type StreamSource } from './streams.ts';

export interface IssuerClientOptions {
  /** The API's origin (`https://issuer.example`); a trailing `/v1` is taken off. */
  baseUrl: string;
  /** The API key (`x-api-key`); public operations need none. */
  apiKey?: string;
  /** The fetch to use (default the global one). */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryPolicy;
}

type Operation<Id extends OperationId> = operations[Id];
type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : T extends { content: { 'text/event-stream': infer S } } ? S : undefined;
type SuccessStatus<Id extends OperationId> = Extract<keyof Operation<Id>['responses'], 200 | 201 | 202 | 204>;
/** What a successful call of the operation resolves to. */
export type AnswerOf<Id extends OperationId> = JsonContent<Operation<Id>['responses'][SuccessStatus<Id>]>;
/** The request body of the operation, when it takes one. */
export type BodyOf<Id extends OperationId> = Operation<Id> extends { requestBody: infer R } ? JsonContent<R> : Operation<Id> extends { requestBody?: infer R } ? JsonContent<NonNullable<R>> : never;
type ParameterSet<Id extends OperationId> = Pick<Operation<Id>['parameters'], 'path' | 'query' | 'header'>;
type Defined<T> = { [K in keyof T as [T[K]] extends [undefined | never] ? never : K]: T[K] };

/** The arguments of a call: the operation's parameters and body, an AbortSignal, the Idempotency-Key to send (one is made otherwise). */
export type CallInit<Id extends OperationId> = Defined<ParameterSet<Id>> & ([BodyOf<Id>] extends [never] ? { body?: never } : { body: BodyOf<Id> }) & { signal?: AbortSignal; idempotencyKey?: string };

type Args<Id extends OperationId> = Partial<CallInit<Id>> extends CallInit<Id> ? [init?: CallInit<Id>] : [init: CallInit<Id>];

export interface IssuerClient {
  /** Calls the operation; resolves to its answer, rejects with `IssuerApiError<its codes>` or `IssuerNetworkError`. */
  call<Id extends OperationId>(operationId: Id, ...args: Args<Id>): Promise<AnswerOf<Id>>;
  attestations: {
    create(body: BodyOf<'createAttestation'>, options?: { idempotencyKey?: string; signal?: AbortSignal }): Promise<AnswerOf<'createAttestation'>>;
    get(attestationId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'getAttestation'>>;
    signers(options?: { signal?: AbortSignal }): Promise<AnswerOf<'getAttestationSigners'>>;
  };
  wallets: {
    register(accountId: string, body: BodyOf<'registerWallet'>, options?: { signal?: AbortSignal }): Promise<AnswerOf<'registerWallet'>>;
  };
  /** The account's webhook endpoints: `create` answers the signing secret, once. */
  webhooks: {
    create(body: BodyOf<'createWebhook'>, options?: { idempotencyKey?: string; signal?: AbortSignal }): Promise<AnswerOf<'createWebhook'>>;
    list(options?: { signal?: AbortSignal }): Promise<AnswerOf<'listWebhooks'>>;
    get(webhookId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'getWebhook'>>;
    rotateSecret(webhookId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'rotateWebhookSecret'>>;
    disable(webhookId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'disableWebhook'>>;
    enable(webhookId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'enableWebhook'>>;
    delete(webhookId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'deleteWebhook'>>;
    deliveries(webhookId: string, query?: NonNullable<CallInit<'listWebhookDeliveries'>['query']>, options?: { signal?: AbortSignal }): Promise<AnswerOf<'listWebhookDeliveries'>>;
    replay(webhookId: string, deliveryId: string, options?: { signal?: AbortSignal }): Promise<AnswerOf<'replayWebhookDelivery'>>;
  };
  streams: ReturnType<typeof streamsOf>;
}

function streamsOf(source: StreamSource) {
  return {
    /** The prices of `symbols` (all when omitted) as they change. */
    prices: (o: Parameters<typeof priceStream>[1] = {}) => priceStream(source, o),
    /** The candles of `symbol` at `interval`, the open one updated as ticks come. */
    candles: (o: Parameters<typeof candleStream>[1]) => candleStream(source, o),
  };
}

/** The client of the API at `baseUrl` (see `IssuerClientOptions`). */
export function createIssuerClient(options: IssuerClientOptions): IssuerClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const headers: Record<string, string> = options.apiKey ? { 'x-api-key': options.apiKey } : {};
  const http = createFetchClient<paths>({ baseUrl, headers });

  async function call<Id extends OperationId>(operationId: Id, ...[init]: Args<Id>): Promise<AnswerOf<Id>> {
    const { method, path, retry } = OPERATIONS[operationId];
    const { path: pathParams, query, header, body, signal, idempotencyKey } = (init ?? {}) as { path?: object; query?: object; header?: Record<string, string>; body?: unknown; signal?: AbortSignal; idempotencyKey?: string };
    const requestHeaders = { ...header, ...(retry === 'idempotency-key' ? { 'Idempotency-Key': idempotencyKey ?? header?.['Idempotency-Key'] ?? crypto.randomUUID() } : {}) };
    const request = http.request as unknown as (method: string, path: string, init: object) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    let outcome: { data?: unknown; error?: unknown; response: Response };
    try {
      outcome = await request(method.toUpperCase(), path, {
        params: { path: pathParams, query, header: requestHeaders },
        ...(body === undefined ? {} : { body }),
        headers: requestHeaders,
        signal,
        fetch: retryingFetch(baseFetch, retry, options.retry),
      });
    } catch (error) {
      throw new IssuerNetworkError(operationId, error);
    }
    if (!outcome.response.ok) throw apiErrorOf(operationId, outcome.response, outcome.error);
    return outcome.data as AnswerOf<Id>;
  }

  const stream: StreamSource = { baseUrl, headers, fetch: baseFetch };
  return {
    call,
    attestations: {
      create: (body, o = {}) => call('createAttestation', { body, ...o } as CallInit<'createAttestation'>),
      get: (attestationId, o = {}) => call('getAttestation', { path: { attestationId }, ...o } as CallInit<'getAttestation'>),
      signers: (o = {}) => call('getAttestationSigners', o as CallInit<'getAttestationSigners'>),
    },
    wallets: {
      register: (accountId, body, o = {}) => call('registerWallet', { path: { accountId }, body, ...o } as CallInit<'registerWallet'>),
    },
    webhooks: {
      create: (body, o = {}) => call('createWebhook', { body, ...o } as CallInit<'createWebhook'>),
      list: (o = {}) => call('listWebhooks', o as CallInit<'listWebhooks'>),
      get: (webhookId, o = {}) => call('getWebhook', { path: { webhookId }, ...o } as CallInit<'getWebhook'>),
      rotateSecret: (webhookId, o = {}) => call('rotateWebhookSecret', { path: { webhookId }, ...o } as CallInit<'rotateWebhookSecret'>),
      disable: (webhookId, o = {}) => call('disableWebhook', { path: { webhookId }, ...o } as CallInit<'disableWebhook'>),
      enable: (webhookId, o = {}) => call('enableWebhook', { path: { webhookId }, ...o } as CallInit<'enableWebhook'>),
      delete: (webhookId, o = {}) => call('deleteWebhook', { path: { webhookId }, ...o } as CallInit<'deleteWebhook'>),
      deliveries: (webhookId, query, o = {}) => call('listWebhookDeliveries', { path: { webhookId }, ...(query ? { query } : {}), ...o } as CallInit<'listWebhookDeliveries'>),
      replay: (webhookId, deliveryId, o = {}) => call('replayWebhookDelivery', { path: { webhookId, deliveryId }, ...o } as CallInit<'replayWebhookDelivery'>),
    },
    streams: streamsOf(stream),
  };
}

export type { ErrorCodeOf };
