/**
 * POST /v1/tokenization/inkind/issuance (partner) — the broker asks the issuer to mint for a participant's shares:
 * 201 `{issuer_request_id, status: "created"}`, the mint's workflow started. The `tokenization_request_id` makes it
 * idempotent: a resubmission answers the first result (200, `Idempotent-Replayed: true`), the same id with other
 * fields is 409. Refusals: see partner/issuance.ts.
 */
import { acceptIssuance } from '../../../partner/issuance';
import { refusalsAsErrors, requireBrokerSigners, requireWorkflows } from './context';
import { issuanceBody, ISSUANCE_FIELD_CODES } from './fields';
import { defineOperation } from '../../contract/operation';
import { issuanceAcceptedSchema, type IssuanceAccepted } from './schemas';

export const issuanceOperation = defineOperation({
  method: 'post',
  path: '/v1/tokenization/inkind/issuance',
  operationId: 'submitIssuance',
  summary: 'Ask the issuer to mint for delivered shares',
  description: [
    "The broker's in-kind issuance: the client must be onboarded, eligible and linked to a partner account; the wallet the client's, enabled for the flow and registered on the network; `token_symbol` the token of `underlying_symbol`, offered on the network; `created` (epoch seconds) at most 15 minutes old and at most 1 minute ahead (`INVALID_CREATED`); `broker_signature` the EIP-712 signature of the `MintRequest` rebuilt from the body (`clientAccountId` = `client_id`, `qty` in 1e-9 shares) by a key holding BROKER_SIGNER_ROLE on the network's issuer contract, in the form the contract takes — 65 bytes r‖s‖v, `v` 27 or 28, `s` at most n/2 (`INVALID_BROKER_SIGNATURE`; 503 `CHAIN_UNAVAILABLE` while the chain cannot be read); `nonce` neither used on chain by the signer (`brokerNonceUsed`) nor held by another issuance of the same signer on the network that is not rejected, as the contract takes each once (`BROKER_NONCE_USED`); and the USD value of `qty` at the underlying's latest price must fit in what remains of the running session's mint limit for the underlying. A refusal stores nothing and holds no limit. The request is then stored `created` and its workflow started: it mints `qty` ÷ shares multiplier tokens to the wallet once the broker confirms the journal of the shares.",
    '`tokenization_request_id` is the idempotency key: a resubmission of the same request answers the first result (200 with `Idempotent-Replayed: true`) and makes sure its workflow runs; the same id with any other field is 409 `REQUEST_CONFLICT`.',
  ].join('\n\n'),
  access: 'partner',
  body: issuanceBody,
  fieldCodes: ISSUANCE_FIELD_CODES,
  answers: {
    201: { description: 'Stored and its workflow started.', schema: issuanceAcceptedSchema },
    200: {
      description: 'A resubmission of a stored request: the first result.',
      schema: issuanceAcceptedSchema,
      headers: { 'Idempotent-Replayed': '`true`: the answer is the one given to the first submission of this `tokenization_request_id`.' },
    },
  },
  errors: [
    'INVALID_QTY',
    'INVALID_SYMBOL',
    'INVALID_TOKEN_SYMBOL',
    'INVALID_NETWORK',
    'INVALID_WALLET_ADDRESS',
    'INVALID_BROKER_SIGNATURE',
    'BROKER_NONCE_USED',
    'INVALID_CREATED',
    'TOKEN_NOT_ON_NETWORK',
    'CLIENT_NOT_ELIGIBLE',
    'ACCOUNT_NOT_LINKED',
    'WALLET_NOT_ENABLED',
    'PARTNER_LIMIT_REACHED',
    'CLIENT_NOT_FOUND',
    'REQUEST_CONFLICT',
    'PRICE_UNAVAILABLE',
    'TEMPORAL_UNAVAILABLE',
    'CHAIN_UNAVAILABLE',
  ],
  handler: (services) => async (ctx, { body }) => {
    const workflows = requireWorkflows(services);
    const brokerSigners = requireBrokerSigners(services);
    const outcome = await refusalsAsErrors(() =>
      acceptIssuance(
        { db: services.db, workflows, now: services.clock(), brokerSigners },
        {
          tokenizationRequestId: body.tokenization_request_id,
          qty: body.qty,
          underlyingSymbol: body.underlying_symbol,
          tokenSymbol: body.token_symbol,
          network: body.network,
          clientId: body.client_id,
          wallet: body.wallet_address as `0x${string}`,
          mintRequest: { created: body.created, nonce: BigInt(body.nonce).toString(), brokerSignature: body.broker_signature as `0x${string}` },
        },
      ),
    );
    ctx.status = outcome.created ? 201 : 200;
    if (!outcome.created) ctx.set('Idempotent-Replayed', 'true');
    ctx.body = { issuer_request_id: outcome.request.issuerRequestId, status: 'created' } satisfies IssuanceAccepted;
  },
});
