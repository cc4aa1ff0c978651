/**
 * The closed set of API error codes, their HTTP statuses and reference text, in one place.
 * Handlers throw `ApiError`; the error middleware renders `{code, message, documentation}`.
 */

interface ErrorCodeDefinition {
  status: number;
  /** One line for the error reference page: when a client sees this code. */
  description: string;
}

export const ERROR_CODES = {
  INVALID_SYMBOL: { status: 400, description: 'The symbol is malformed: at least 3 characters, ending in `on`.' },
  INVALID_SORT: { status: 400, description: 'Query parameter `sort` is not `asc` or `desc`.' },
  INVALID_INTERVAL: { status: 400, description: 'Query parameter `interval` is missing or not one of the OHLC intervals.' },
  INVALID_RANGE: { status: 400, description: 'Query parameter `range` is missing or not one of the ranges.' },
  INVALID_INTERVAL_RANGE: { status: 400, description: 'The `interval` and `range` pair is not one of the supported pairs.' },
  INVALID_PARAMETER: { status: 400, description: 'A query or path parameter is invalid; the message names it.' },
  INVALID_REQUEST_BODY: { status: 400, description: 'The JSON body does not match the schema; the message names the field.' },
  MALFORMED_JSON: { status: 400, description: 'The body is not valid JSON.' },
  MISSING_API_KEY: { status: 401, description: 'The `x-api-key` header is missing, unknown or revoked.' },
  READ_ONLY_API_KEY: { status: 403, description: 'A read-only key was used for a write operation.' },
  ADMIN_SCOPE_REQUIRED: { status: 403, description: 'The operation needs a key with the `admin` scope.' },
  ASSET_NOT_FOUND: { status: 404, description: 'No token with this symbol exists.' },
  EVENT_NOT_FOUND: { status: 404, description: 'No asset status event with this id exists.' },
  WORKFLOW_NOT_FOUND: { status: 404, description: 'No workflow with this id exists.' },
  NOT_FOUND: { status: 404, description: 'No such route.' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The route exists but not for this HTTP method.' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body exceeds the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'Request bodies must be `application/json`.' },
  RATE_LIMITED: { status: 429, description: 'The key exceeded its rate limit; retry after `Retry-After` seconds.' },
  INTERNAL_ERROR: { status: 500, description: 'Unexpected server error; the message carries a request id to quote.' },
  TEMPORAL_UNAVAILABLE: { status: 503, description: 'The workflow service cannot be reached; retry later.' },
} as const satisfies Record<string, ErrorCodeDefinition>;

export type ErrorCode = keyof typeof ERROR_CODES;

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
