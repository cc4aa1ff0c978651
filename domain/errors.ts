/**
 * Failures as every transport reports them: `ApiError` carries a code from the closed list in error-codes.ts and
 * leaves the HTTP API as `{code, message, documentation}` (rendered by one middleware), a gRPC stream as the status
 * its code maps to. `ClientAborted` is a client gone before its request body was read, in either HTTP app.
 */
import { ERROR_CODES, type ErrorCode } from './error-codes';

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
