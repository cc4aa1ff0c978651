/**
 * The sandbox's closed set of error codes, each with its HTTP status and one line for the error reference it
 * serves at /docs/errors. Handlers throw `BrokerError`; one middleware renders `{code, message, documentation}`.
 */

export const BROKER_ERROR_CODES = {
  INVALID_REQUEST_BODY: { status: 400, description: 'The JSON body does not match the schema; the message names the field.' },
  MALFORMED_JSON: { status: 400, description: 'The body is not valid JSON.' },
  INVALID_PARAMETER: { status: 400, description: 'A path or query parameter is invalid; the message names it.' },
  INVALID_QTY: { status: 400, description: '`qty` is not a decimal string greater than zero with at most nine decimals.' },
  INVALID_SYMBOL: { status: 400, description: '`underlying_symbol` is not 1–10 capital letters (optionally with `.`), or `token_symbol` is not the underlying followed by `on`.' },
  INVALID_NETWORK: { status: 400, description: '`network` is not `ethereum` or `binance`.' },
  INVALID_WALLET_ADDRESS: { status: 400, description: '`wallet_address` is not a 0x-prefixed 20-byte EVM address (mixed case must be a valid checksum).' },
  INVALID_TX_HASH: { status: 400, description: '`tx_hash` is not a 0x-prefixed 32-byte hex transaction hash.' },
  INVALID_ORDER: { status: 400, description: 'An order field is invalid (`side`, `type`, `time_in_force`, `limit_price`, `client_order_id`); the message names it.' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, description: 'The `Idempotency-Key` header must be 1–128 printable ASCII characters.' },
  UNAUTHORIZED: { status: 401, description: 'HTTP basic authentication is missing, malformed, or the key and secret do not match.' },
  FORBIDDEN: { status: 403, description: 'The credential may not call this endpoint (a participant on an issuer callback, or the issuer on a participant action).' },
  ACCOUNT_NOT_FOUND: { status: 404, description: "No account with this id that the credential may act on (a participant's own accounts; the issuer's own account)." },
  REQUEST_NOT_FOUND: { status: 404, description: 'No tokenization request with this id in the account.' },
  ORDER_NOT_FOUND: { status: 404, description: 'No order with this id in the account.' },
  CLIENT_NOT_LINKED: { status: 404, description: 'No participant account is linked to this `client_id`.' },
  ISSUER_CLIENT_NOT_FOUND: { status: 404, description: "The issuer knows no client with the account's email: sign up with the issuer first, then connect." },
  NOT_FOUND: { status: 404, description: 'No such route.' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The route does not accept this method.' },
  REQUEST_CONFLICT: { status: 409, description: 'The callback contradicts the request as recorded (not pending, shares not journalled, another tx hash, or another redemption under the same issuer request id).' },
  CLIENT_ALREADY_LINKED: { status: 409, description: 'The account is already linked to another issuer client id, that client id is linked to another account, or the issuer has already linked its client elsewhere.' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body is larger than the sandbox accepts.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request body is not application/json.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, description: 'The `Idempotency-Key` was already used with another request body.' },
  ACCOUNT_NOT_LINKED: { status: 422, description: 'The account has no issuer client id yet: connect it (POST …/tokenization/connect, or PUT …/tokenization/client) before minting.' },
  UNKNOWN_ISSUER: { status: 422, description: '`issuer` is not the issuer this sandbox works with.' },
  NETWORK_UNAVAILABLE: { status: 422, description: 'The sandbox has no issuer contract configured for this network.' },
  CLIENT_MISMATCH: { status: 422, description: "The callback's `client_id` is not the one linked to the request's account." },
  CLIENT_ORDER_ID_REUSED: { status: 422, description: 'The `client_order_id` names an order of the account placed with other fields (the same fields answer that first order).' },
  SYMBOL_NOT_TRADABLE: { status: 422, description: 'The sandbox has no price for the symbol, so it cannot fill an order in it.' },
  INSUFFICIENT_POSITION: { status: 422, description: 'A sell of more shares than the account holds: positions never go negative.' },
  MARKET_CLOSED: { status: 422, description: 'Orders are taken only while the sandbox trades (premarket, regular and postmarket sessions of US equities); the message names the next open. Place the order again then.' },
  RATE_LIMITED: { status: 429, description: 'The client address made too many failed authentications (10 a minute by default); retry after `Retry-After` seconds.' },
  INTERNAL_ERROR: { status: 500, description: 'Internal error; the message carries the request id.' },
  ISSUER_REFUSED: { status: 502, description: "The issuer refused the call for a reason the sandbox cannot act on; the message carries the issuer's code and message." },
  ISSUER_UNAVAILABLE: { status: 503, description: 'The issuer did not answer usably (5xx, timeout, network error); nothing was stored. Retry after `Retry-After` seconds.' },
  SERVICE_UNAVAILABLE: { status: 503, description: "The sandbox's database cannot be reached (restarting, or down). Retry after `Retry-After` seconds; a retried mint with the same `Idempotency-Key` is answered once." },
} as const satisfies Record<string, { status: number; description: string }>;

export type BrokerErrorCode = keyof typeof BROKER_ERROR_CODES;

/** A failure that leaves the sandbox as `{code, message, documentation}` with the code's status. */
export class BrokerError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: BrokerErrorCode,
    message: string,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'BrokerError';
    this.status = BROKER_ERROR_CODES[code].status;
    this.headers = options.headers ?? {};
  }
}

export interface BrokerErrorBody {
  code: BrokerErrorCode;
  message: string;
  documentation: string;
}

export function brokerErrorBody(baseUrl: string, code: BrokerErrorCode, message: string): BrokerErrorBody {
  return { code, message, documentation: `${baseUrl}/docs/errors#${code.toLowerCase()}` };
}
