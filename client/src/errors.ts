/**
 * The failures the kit gives, as values a caller can switch on: an answer of the API (`IssuerApiError`, its `code`
 * one of the codes the operation declares), a request that got no answer (`IssuerNetworkError`), and a transaction
 * the chain refused (`IssuerChainError`, the contract's custom error by name).
 */
import type { operations } from './generated/api.ts';
import type { OperationId } from './generated/operations.ts';
import { retryAfterMs } from './retry.ts';

type Responses<Id extends OperationId> = operations[Id]['responses'];
type ErrorBody<R> = R extends { content: { 'application/json': infer B } } ? (B extends { code: string } ? B : never) : never;
type FailureStatus<Id extends OperationId> = Exclude<keyof Responses<Id>, 200 | 201 | 202 | 204>;

/** The error codes an operation declares it can answer with. */
export type ErrorCodeOf<Id extends OperationId> = { [S in FailureStatus<Id>]: ErrorBody<Responses<Id>[S]>['code'] }[FailureStatus<Id>];
/** Every error code of the API. */
export type ErrorCode = { [Id in OperationId]: ErrorCodeOf<Id> }[OperationId];

/** The API answered with an error: `{code, message, documentation}`, its HTTP status and, on 429/503, how long to wait. */
export class IssuerApiError<C extends string = ErrorCode> extends Error {
  override readonly name = 'IssuerApiError';
  readonly code: C;
  readonly documentation: string;
  readonly status: number;
  /** `Retry-After` in milliseconds, when the answer carried one. */
  readonly retryAfterMs: number | undefined;
  readonly operationId: string;

  constructor(o: { code: C; message: string; documentation: string; status: number; retryAfterMs: number | undefined; operationId: string }) {
    super(o.message);
    this.code = o.code;
    this.documentation = o.documentation;
    this.status = o.status;
    this.retryAfterMs = o.retryAfterMs;
    this.operationId = o.operationId;
  }
}

/** The request got no answer (connection refused or reset, timed out, aborted); `cause` is the fetch's error. */
export class IssuerNetworkError extends Error {
  override readonly name = 'IssuerNetworkError';
  readonly operationId: string;

  constructor(operationId: string, cause: unknown) {
    super(`${operationId}: no answer (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
    this.operationId = operationId;
  }
}

/** A transaction of the on-chain step reverted (or would): the contract's error by name and its arguments. */
export class IssuerChainError extends Error {
  override readonly name = 'IssuerChainError';
  /** The custom error (`QuoteExpired`, `UserIdMismatch`, `ERC20InsufficientBalance`…), or `unknown`. */
  readonly reason: string;
  readonly args: readonly unknown[];

  constructor(reason: string, args: readonly unknown[], message: string, cause?: unknown) {
    super(message, { cause });
    this.reason = reason;
    this.args = args;
  }
}

/** Whether `error` is an answer of the API, with one of `codes` when any are given: narrows `code` to them. */
export function isIssuerError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is IssuerApiError<C> {
  return error instanceof IssuerApiError && (codes.length === 0 || codes.includes(error.code as C));
}

/** The `IssuerApiError` an error answer of the operation makes (a body off the contract still gives one, `HTTP_<status>`). */
export function apiErrorOf(operationId: string, response: Response, body: unknown): IssuerApiError<string> {
  const answer = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown; documentation?: unknown };
  return new IssuerApiError({
    code: typeof answer.code === 'string' ? answer.code : `HTTP_${response.status}`,
    message: typeof answer.message === 'string' ? answer.message : `${operationId} answered ${response.status}`,
    documentation: typeof answer.documentation === 'string' ? answer.documentation : '',
    status: response.status,
    retryAfterMs: retryAfterMs(response),
    operationId,
  });
}
