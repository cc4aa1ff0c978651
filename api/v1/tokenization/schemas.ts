/**
 * The answers of the partner (tokenization) resource as zod schemas (named in the OpenAPI document); the routes'
 * types come from them. The partner routes answer in the brokerage network's snake_case, the operators' in camelCase.
 */
import { z } from 'zod';
import type { PartnerRequestState } from '../../../db/queries/partner-requests';
import type { WalletState } from '../../../db/queries/wallets';
import { PARTNER_NETWORKS, type PartnerNetwork } from '../../../domain/partner';
import { decimalString, epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';

const partnerNetwork = z.enum(Object.keys(PARTNER_NETWORKS) as [PartnerNetwork, ...PartnerNetwork[]]).describe("The partner's name of the network.");
const partnerChainId = z.string().describe('The chain of the network: `ethereum-1` (ethereum) or `bsc-56` (binance).');

/** Every state a partner request's workflow moves it through. */
export const PARTNER_REQUEST_STATES = [
  'pending',
  'completed',
  'rejected',
  'created',
  'confirmed',
  'minted',
  'needs_review',
  'delivering',
  'awaiting_finality',
  'cancelled',
] as const satisfies readonly PartnerRequestState[];

const WALLET_STATES = ['registering', 'registered', 'unregistering', 'unregistered', 'failed'] as const satisfies readonly WalletState[];
const walletState = z
  .enum(WALLET_STATES)
  .describe("The wallet in the chain's identity registry: the state wanted while `registering`/`unregistering`, then where the chain stands.");

// ---------------------------------------------------------------------------------------------------------------
// The partner's answers

export const connectedAccountSchema = component(
  'PartnerConnection',
  z.object({ client_id: z.string().describe('The client the partner account is now linked to; the id the partner sends as `client_id`.') }),
);
export type PartnerConnection = z.infer<typeof connectedAccountSchema>;

export const tokenizedAssetsSchema = component(
  'TokenizedAssets',
  z.object({
    tokens: z.array(
      z.object({
        underlying: z.string().describe('The underlying ticker, as `underlying_symbol`.'),
        token: z.string().describe('Its token, as `token_symbol` (the underlying followed by `on`).'),
        networks: z.array(partnerNetwork).describe('The networks the token is deployed on.'),
      }),
    ),
  }),
);
export type TokenizedAssets = z.infer<typeof tokenizedAssetsSchema>;

export const issuanceAcceptedSchema = component(
  'IssuanceAccepted',
  z.object({
    issuer_request_id: z.string().describe("The issuer's id of the mint; the broker sends it back with the confirm."),
    status: z.literal('created').describe('Always `created`, also on a replay.'),
  }),
);
export type IssuanceAccepted = z.infer<typeof issuanceAcceptedSchema>;

export const issuanceConfirmationSchema = component(
  'IssuanceConfirmation',
  z.object({
    tokenization_request_id: z.string(),
    issuer_request_id: z.string(),
    status: z.enum(['completed', 'rejected']).describe('The confirm stored for the request.'),
  }),
);
export type IssuanceConfirmation = z.infer<typeof issuanceConfirmationSchema>;

// ---------------------------------------------------------------------------------------------------------------
// The operators' answers

export const partnerClientSchema = component(
  'PartnerClient',
  z.object({
    clientId: z.string().describe('The account id.'),
    email: z.string().describe('The email the partner connects with (stored lower-case).'),
    eligible: z.boolean().describe('Whether the client may mint through the partner flow.'),
    partnerAccount: z.string().nullable().describe("The partner's account number the client is linked to; null until linked."),
    linkedAt: epochMs.nullable().describe('When the link was made; null until linked.'),
    wallets: z
      .array(
        z.object({
          chainId: partnerChainId,
          network: partnerNetwork,
          address: z.string().describe('Lower-case.'),
          registration: walletState,
        }),
      )
      .describe('The wallets enabled for the partner flow.'),
  }),
);
export type PartnerClient = z.infer<typeof partnerClientSchema>;

export const partnerWalletSchema = component(
  'PartnerWallet',
  z.object({
    accountId: z.string(),
    chainId: z.string().describe('An EVM chain: `ethereum-1` or `bsc-56`.'),
    address: z.string().describe('Lower-case.'),
    userId: z.string().describe("The account's id in the identity registry."),
    state: walletState,
    txHash: z.string().nullable().describe('The registry transaction, once sent.'),
    error: z.string().nullable().describe('Why the registry change failed, when it did.'),
    updatedAt: epochMs,
    partnerEnabled: z.boolean().describe('Whether the wallet is enabled for the partner flow.'),
  }),
);
export type PartnerWallet = z.infer<typeof partnerWalletSchema>;

export const partnerRequestWorkflowSchema = component(
  'PartnerRequestWorkflow',
  z.object({
    issuerRequestId: z.string(),
    kind: z.enum(['mint', 'redeem']),
    state: z.string().describe("The request's state as the workflow last wrote it."),
    step: z
      .string()
      .describe('What the workflow is doing or waiting for, e.g. `awaiting_confirm`, `paused`, `minting`, `awaiting_finality` (the mint transaction is included, its block not final yet), `waiting_for_limit`, `needs_review`.'),
    reason: z.string().nullable(),
    txHash: z.string().nullable(),
  }),
);

export const partnerRequestSchema = component(
  'PartnerRequest',
  z.object({
    issuerRequestId: z.string().describe('`mint-<uuid>` for a mint, the redemption id for a redemption.'),
    type: z.enum(['mint', 'redeem']),
    status: z.enum(['pending', 'completed', 'rejected']).describe('The status the partner sees: `pending` until `completed` or `rejected`.'),
    state: z
      .enum(PARTNER_REQUEST_STATES)
      .describe(
        "The workflow's state of the request. A burn is `awaiting_finality` from the moment its block is seen until that block is final (then its workflow opens it), or `cancelled` if the block left the chain (nothing is delivered).",
      ),
    clientId: z.string().nullable().describe('Null for a redemption from a wallet no client is linked to (until an operator assigns one).'),
    chainId: partnerChainId,
    network: partnerNetwork,
    underlyingSymbol: z.string(),
    tokenSymbol: z.string(),
    walletAddress: z.string().describe('Lower-case.'),
    qty: decimalString.nullable().describe('Shares: requested (mint) or owed (redemption, once computed).'),
    tokenAmount: decimalString.nullable().describe('Token base units minted or burned.'),
    sharesMultiplier: decimalString.nullable(),
    shareDust: decimalString.nullable().describe('Shares a redemption owed below the partner precision of nine decimals.'),
    notionalUsd: decimalString.nullable().describe('The USD value counted against the session limit.'),
    sessionStart: epochMs.nullable().describe('The start of the session whose limit the request counts against.'),
    tokenizationRequestId: z.string().nullable().describe("The broker's id of a mint."),
    confirmStatus: z.enum(['completed', 'rejected']).nullable().describe("The broker's confirm of a mint, once received."),
    txHash: z.string().nullable().describe('The mint or burn transaction.'),
    reason: z.string().nullable().describe('Why the request was rejected, cancelled or is held for review.'),
    createdAt: epochMs,
    updatedAt: epochMs,
    workflow: partnerRequestWorkflowSchema
      .nullable()
      .optional()
      .describe('Where the workflow stands (one request only); null when it cannot answer now.'),
  }),
);
export type PartnerRequest = z.infer<typeof partnerRequestSchema>;

export const partnerRequestPageSchema = component(
  'PartnerRequestPage',
  z.object({
    requests: z.array(partnerRequestSchema).describe('Newest first, without `workflow`.'),
    nextCursor: z.string().nullable().describe('The `cursor` of the next page; null on the last.'),
  }),
);
export type PartnerRequestPage = z.infer<typeof partnerRequestPageSchema>;
