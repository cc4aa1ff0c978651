/**
 * API failures: handlers throw `ApiError` with a code from the closed list in domain/error-codes.ts;
 * the error middleware renders `{code, message, documentation}`.
 */
import { ERROR_CODES, type ErrorCode } from '../../domain/error-codes';

/** A failure that leaves the API as `{code, message, documentation}` with the code's status. */
export class ApiError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
    this.headers = options.headers ?? {};
  }
}

/** The client closed the connection before its request was read: its own doing, not a failure of the service. */
export class ClientAborted extends Error {
  override readonly name = 'ClientAborted';

  constructor(options: { cause?: unknown } = {}) {
    super('The client closed the connection before its request body was read', options);
  }
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  documentation: string;
}

/** The URL of a code's entry in the error reference the service serves at /docs/errors. */
export function documentationUrl(baseUrl: string, code: string): string {
  return `${baseUrl}/docs/errors#${code.toLowerCase()}`;
}

export function errorBody(baseUrl: string, code: ErrorCode, message: string): ErrorBody {
  return { code, message, documentation: documentationUrl(baseUrl, code) };
}

export const INVALID_SYMBOL_MESSAGE = 'Symbol must be at least 3 characters long and end with "on"';
