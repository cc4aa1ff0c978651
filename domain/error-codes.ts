/**
 * The closed set of error codes the product answers with, each with its HTTP status and the one line
 * the error reference shows. Shared by the API (which renders them) and the services that refuse a
 * request (attestations), so neither imports the other.
 */

export interface ErrorCodeDefinition {
  status: number;
  /** One line for the error reference page: when a client sees this code. */
  description: string;
}

export const ERROR_CODES = {
  INVALID_SYMBOL: { status: 400, description: 'The symbol is malformed: at least 3 characters, ending in `on`.' },
  INVALID_SORT: { status: 400, description: 'Query parameter `sort` is not `asc` or `desc`.' },
  INVALID_INTERVAL: { status: 400, description: 'Query parameter `interval` is missing or not one of the OHLC intervals.' },
  INVALID_RANGE: { status: 400, description: 'Query parameter `range` is missing or not one of the ranges.' },
  INVALID_INTERVAL_RANGE_PAIR: { status: 400, description: 'The `interval` and `range` pair is not one of the supported pairs.' },
  INVALID_SIDE: { status: 400, description: '`side` is missing or not `buy` or `sell`.' },
  INVALID_TOKEN_AMOUNT: { status: 400, description: '`tokenAmount` is not a decimal string greater than zero with at most 18 decimals.' },
  INVALID_NOTIONAL_VALUE: { status: 400, description: '`notionalValue` is not a decimal string greater than zero with at most 18 decimals.' },
  INVALID_AMOUNT: { status: 400, description: 'Only one of `tokenAmount` and `notionalValue` may be sent.' },
  MISSING_TOKEN_OR_NOTIONAL: { status: 400, description: 'Neither `tokenAmount` nor `notionalValue` was sent; one of them is required.' },
  INVALID_DURATION: { status: 400, description: '`duration` is not `short` or `long`.' },
  INVALID_GM_CHAIN: { status: 400, description: '`chainId` is not a chain: `ethereum-1`, `bsc-56` or `solana-900`.' },
  UNSUPPORTED_GM_CHAIN: { status: 400, description: '`chainId` is a chain this operation does not take: wallets and the partner flow are on the EVM chains (`ethereum-1`, `bsc-56`) only.' },
  PAUSED_GM_CHAIN: { status: 400, description: 'An operator paused the chain: no attestation or soft quote on it until it is resumed (reads go on).' },
  MISSING_CHAIN_ID: { status: 400, description: '`chainId` is required here and was not sent.' },
  MISSING_SYMBOL: { status: 400, description: '`symbol` is required and was not sent.' },
  MISSING_SIDE: { status: 400, description: '`side` is required and was not sent.' },
  MISSING_USER_ADDRESS: { status: 400, description: 'A `solana-900` attestation needs `userAddress`.' },
  INVALID_USER_ADDRESS: { status: 400, description: '`userAddress` is not a base58 32-byte Solana public key.' },
  INVALID_WALLET_ADDRESS: {
    status: 400,
    description: "The wallet address is not one of the chain's: a 0x-prefixed 20-byte hex address on an EVM chain, a base58 32-byte public key on `solana-900`.",
  },
  INVALID_IDEMPOTENCY_KEY: { status: 400, description: 'The `Idempotency-Key` header must be 1–255 printable characters.' },
  INVALID_PARAMETER: { status: 400, description: 'A query or path parameter is invalid; the message names it.' },
  INVALID_REQUEST_BODY: { status: 400, description: 'The JSON body does not match the schema; the message names the field.' },
  INVALID_WEBHOOK_URL: {
    status: 400,
    description: 'The webhook URL is not an absolute `https` URL without credentials (plain `http` only where the operator allows it), or its host does not resolve.',
  },
  WEBHOOK_URL_FORBIDDEN: {
    status: 400,
    description: 'The webhook URL resolves to a private, loopback, link-local or otherwise internal address; an operator can allow a network with `WEBHOOK_ALLOWED_NETWORKS`.',
  },
  INVALID_EVENT_TYPE: { status: 400, description: '`events` names an event type that is not in the catalogue (`GET /v1/openapi.json`, section `webhooks`).' },
  WEBHOOK_LIMIT_REACHED: { status: 400, description: 'The account already has the maximum number of webhook endpoints; delete one first.' },
  MALFORMED_JSON: { status: 400, description: 'The body is not valid JSON.' },
  INVALID_QTY: { status: 400, description: '`qty` is not a decimal string greater than zero with at most nine decimals.' },
  INVALID_NETWORK: { status: 400, description: '`network` is not `ethereum` or `binance`.' },
  INVALID_TOKEN_SYMBOL: { status: 400, description: '`token_symbol` is not the token of `underlying_symbol` (the underlying followed by `on`).' },
  INVALID_BROKER_SIGNATURE: { status: 400, description: "`broker_signature` is not an EIP-712 signature of the mint request by a key holding BROKER_SIGNER_ROLE on the network's issuer contract." },
  BROKER_NONCE_USED: {
    status: 400,
    description: "`nonce` was already used on chain by a mint signed by the same broker key, or is held by another issuance of that key on this network (the issuer contract takes each signer's nonce once); a rejected issuance frees its nonce.",
  },
  INVALID_CREATED: { status: 400, description: '`created` is outside the freshness window: more than 15 minutes old, or more than 1 minute in the future.' },
  TOKEN_NOT_ON_NETWORK: { status: 400, description: 'The token is not offered in the partner flow on this network.' },
  MAX_ATTESTATIONS: { status: 400, description: 'The user already has the maximum number of outstanding attestations for this asset in this session.' },
  MAX_LIMIT_REACHED: {
    status: 400,
    description: "The order would take the user's outstanding notional for this asset over the session's maximum, or is larger than a limited asset's reduced order size.",
  },
  SESSION_LIMIT_REACHED: { status: 400, description: "The order would take the user's notional attested in this session over its maximum." },
  OFFHOURS_EXPOSURE_LIMIT_REACHED: { status: 400, description: "The order would take the issuer's off-hours exposure (global or for the asset) over its cap." },
  MISSING_API_KEY: { status: 401, description: "No key was sent: neither the `x-api-key` header nor a partner key's basic credentials." },
  INVALID_API_KEY: { status: 401, description: "The key sent is unknown or revoked (or a partner key's basic credentials name another key, or a key that is not a partner's)." },
  READ_ONLY_API_KEY: { status: 403, description: 'A read-only key was used for a write operation.' },
  MARKET_CLOSED: { status: 403, description: 'No session in which the asset trades is running.' },
  MARKET_PAUSED: { status: 403, description: 'An operator paused the whole market.' },
  ASSET_PAUSED: { status: 403, description: 'Trading of the asset is paused.' },
  INVALID_ADDRESS: {
    status: 403,
    description:
      "The account trades only through wallets an operator allow-listed for it, and the wallet is not listed on the chain: the request's `userAddress` (Solana), or a wallet registered to the account on the EVM chain.",
  },
  ASSET_REDEEM_ONLY: { status: 403, description: 'The asset is redeem-only for now (an operator event): it can be sold (redeemed), not bought (minted).' },
  ASSET_CLOSED_FOR_SESSION: { status: 403, description: 'The asset does not trade in the current session.' },
  RESERVES_SHORT: {
    status: 403,
    description:
      'Attestation minting (buy) of the asset is paused: its reserves are short — the shares held at the broker, with what is in flight, cover its tokens by less than the tolerance (`GET /v1/reserves`). Resumes by itself once covered; sells are not refused.',
  },
  ADMIN_SCOPE_REQUIRED: { status: 403, description: 'The operation needs a key with the `admin` scope.' },
  PARTNER_SCOPE_REQUIRED: { status: 403, description: 'The partner routes take a partner-scoped key (the one the issuer gave the broker).' },
  CLIENT_NOT_ELIGIBLE: { status: 403, description: 'The client is not eligible for the partner flow.' },
  ACCOUNT_NOT_LINKED: { status: 403, description: "The client's account is not linked to a partner account (connect first)." },
  WALLET_NOT_ENABLED: { status: 403, description: 'The wallet is not enabled for the partner flow for this client on this network, or its registration is not complete.' },
  PARTNER_LIMIT_REACHED: { status: 403, description: "The request would take the session's partner-flow USD limit for the underlying over its maximum." },
  ASSET_NOT_FOUND: { status: 404, description: 'No token with this symbol exists.' },
  ACCOUNT_NOT_FOUND: { status: 404, description: 'No account with this id exists.' },
  ATTESTATION_NOT_FOUND: { status: 404, description: 'No attestation with this id belongs to the calling account.' },
  EVENT_NOT_FOUND: { status: 404, description: 'No asset status event with this id exists.' },
  WORKFLOW_NOT_FOUND: { status: 404, description: 'No workflow with this id exists.' },
  WALLET_NOT_FOUND: { status: 404, description: 'The account has no such wallet on this chain.' },
  CLIENT_NOT_FOUND: { status: 404, description: 'No client onboarded for the partner flow has this id or email.' },
  REQUEST_NOT_FOUND: { status: 404, description: 'No partner request has this id.' },
  WEBHOOK_NOT_FOUND: { status: 404, description: 'No webhook endpoint with this id belongs to the calling account.' },
  DELIVERY_NOT_FOUND: { status: 404, description: 'The webhook endpoint has no delivery with this id.' },
  RESOURCE_NOT_FOUND: { status: 404, description: 'No such route, or one this process does not serve (live streams, price ingestion).' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The route exists but not for this HTTP method.' },
  WALLET_ALREADY_REGISTERED: { status: 409, description: 'The wallet is registered to another account on this chain.' },
  ACCOUNT_ALREADY_LINKED: { status: 409, description: 'The client, or the partner account, is already linked to another.' },
  PRICES_SIMULATED: {
    status: 409,
    description: 'The simulated price feed owns the prices of this process (`PRICE_SOURCE=simulated`): ingested ticks would be overwritten; run it with `PRICE_SOURCE=external`.',
  },
  EVENT_NOT_DELETABLE: { status: 409, description: "The asset status event is a dividend's pause, derived from the catalogue: it cannot be deleted." },
  REQUEST_CONFLICT: { status: 409, description: 'The partner request id was already used with other fields, or the request is past the step asked for.' },
  WEBHOOK_DISABLED: { status: 409, description: 'The webhook endpoint is disabled (by its owner, or after failing for too long: its `disabledReason` says why); enable it first.' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body exceeds the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'Request bodies must be `application/json`.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, description: 'The `Idempotency-Key` was already used with a different request body.' },
  RATE_LIMITED: { status: 429, description: 'The key exceeded its rate limit, or the client address too many failed authentications; retry after `Retry-After` seconds.' },
  INTERNAL_ERROR: { status: 500, description: 'Unexpected server error; the message carries a request id to quote.' },
  PRICE_UNAVAILABLE: { status: 503, description: 'No price recent enough to quote; retry shortly.' },
  ATTESTATIONS_UNAVAILABLE: { status: 503, description: 'This API process is not configured to sign attestations.' },
  TEMPORAL_UNAVAILABLE: { status: 503, description: 'The workflow service cannot be reached; retry later.' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'The database cannot be reached; retry after `Retry-After` seconds (`GET /ready` says what is down).' },
  NONCE_POOL_EXHAUSTED: {
    status: 503,
    description: 'Every durable nonce account of the issuer\'s Solana pool is held by an outstanding attestation, and a Solana attestation is never issued without one (it could not be expired on chain); retry after `Retry-After` seconds, when the soonest held attestation expires.',
  },
  WEBHOOKS_UNAVAILABLE: { status: 503, description: 'This API process has no webhook secret keys configured (`WEBHOOK_SECRET_KEYS`).' },
  CHAIN_UNAVAILABLE: { status: 503, description: 'The chain has no deployed contracts this service can reach; retry later.' },
} as const satisfies Record<string, ErrorCodeDefinition>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Codes that are reasons, never refusals: they explain an answer (an asset status, trading limits) that is itself a
 * 200. The error reference lists them beside the errors, so every `documentation` URL has its entry.
 */
export const REASON_CODES = {
  ASSET_LIMITED: {
    description: "The asset trades with smaller orders: an order over the limited size is refused with `MAX_LIMIT_REACHED`. A reason in asset statuses and trading limits, not an error.",
  },
} as const satisfies Record<string, { description: string }>;

export type ReasonCode = keyof typeof REASON_CODES;
