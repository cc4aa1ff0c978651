/** The partner flow's request fields (the brokerage network's names, snake_case) and the admin views. */
import { z } from 'zod';
import { EVM_CHAINS } from '../../../chains/networks';
import type { PartnerClientRecord } from '../../../db/queries/partner-clients';
import type { PartnerRequestRecord } from '../../../db/queries/partner-requests';
import type { PartnerWalletRecord } from '../../../db/queries/wallets';
import type { ErrorCode } from '../../../domain/error-codes';
import { parameterText } from '../../framework/parameters';
import { networkOfChain, partnerStatus, PARTNER_NETWORKS, type PartnerNetwork } from '../../../domain/partner';
import type { PartnerRequestWorkflowState } from '../../../temporal/messages';
import type { PartnerClient, PartnerRequest } from './schemas';

const UINT256_MAX = (1n << 256n) - 1n;

export const identifier = z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(128, 'must be at most 128 characters').regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');
export const qty = z
  .string({ error: 'must be a decimal string' })
  .regex(/^\d{1,15}(\.\d{1,9})?$/, 'must be a decimal string with at most nine decimals')
  .refine((value) => /[1-9]/.test(value), 'must be greater than zero');
export const underlyingSymbol = z.string({ error: 'must be a string' }).regex(/^[A-Z][A-Z0-9.]{0,9}$/, 'must be an upper-case ticker');
export const network = z.enum(Object.keys(PARTNER_NETWORKS) as [PartnerNetwork, ...PartnerNetwork[]], { error: 'must be ethereum or binance' });
export const walletAddress = z.string({ error: 'must be a string' }).regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const evmChain = z.enum(EVM_CHAINS, { error: `must be an EVM chain: ${EVM_CHAINS.join(', ')}` });

export const issuanceBody = z.strictObject({
  tokenization_request_id: identifier,
  qty,
  underlying_symbol: underlyingSymbol,
  token_symbol: z.string({ error: 'must be a string' }).min(1).max(20),
  network,
  client_id: identifier,
  wallet_address: walletAddress,
  created: z.number({ error: 'must be epoch seconds' }).int('must be an integer').positive('must be positive').max(2 ** 40),
  nonce: z
    .string({ error: 'must be a decimal string' })
    .regex(/^\d{1,78}$/, 'must be a decimal uint256')
    .refine((value) => !/^\d+$/.test(value) || BigInt(value) <= UINT256_MAX, 'must fit in a uint256'),
  broker_signature: z.string({ error: 'must be a string' }).regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte 0x-prefixed hex signature'),
});

export const ISSUANCE_FIELD_CODES: Partial<Record<string, ErrorCode>> = {
  qty: 'INVALID_QTY',
  underlying_symbol: 'INVALID_SYMBOL',
  token_symbol: 'INVALID_TOKEN_SYMBOL',
  network: 'INVALID_NETWORK',
  wallet_address: 'INVALID_WALLET_ADDRESS',
  broker_signature: 'INVALID_BROKER_SIGNATURE',
};

export const confirmBody = z.strictObject({
  tokenization_request_id: identifier,
  issuer_request_id: identifier,
  status: z.enum(['completed', 'rejected'], { error: 'must be completed or rejected' }),
  reason: z.string({ error: 'must be a string' }).max(500).optional(),
});

export const connectBody = z.strictObject({
  email: z.email({ error: 'must be an email address' }).max(254),
  account: identifier,
});

export const clientParams = z.object({ clientId: parameterText(100).min(1) });
export const clientWalletParams = clientParams.extend({ chainId: evmChain, address: walletAddress });
export const clientWalletBody = z.strictObject({ chainId: evmChain, address: walletAddress });
export const CLIENT_WALLET_FIELD_CODES: Partial<Record<string, ErrorCode>> = { chainId: 'INVALID_GM_CHAIN', address: 'INVALID_WALLET_ADDRESS' };

export const clientBody = z.strictObject({
  email: z.email({ error: 'must be an email address' }).max(254),
  eligible: z.boolean({ error: 'must be a boolean' }).default(true),
  /** Links the partner account directly (otherwise the partner links it with connect). */
  partnerAccount: identifier.optional(),
});

export const requestParams = z.object({ issuerRequestId: identifier });
export const resumeBody = z.strictObject({ clientId: z.string({ error: 'must be a string' }).min(1).max(100).optional() });

export function clientView(client: PartnerClientRecord, wallets: PartnerWalletRecord[]): PartnerClient {
  return {
    clientId: client.clientId,
    email: client.email,
    eligible: client.eligible,
    partnerAccount: client.partnerAccount,
    linkedAt: client.linkedAt?.getTime() ?? null,
    wallets: wallets.map((wallet) => ({
      chainId: wallet.chain,
      network: networkOfChain(wallet.chain),
      address: wallet.address,
      registration: wallet.state,
    })),
  };
}

/**
 * Where a workflow stands, told by what is stored where the workflow is inside one long step: a mint whose transaction
 * is included (its hash stored) is awaiting the finality of its block.
 */
function workflowView(request: PartnerRequestRecord, workflow: PartnerRequestWorkflowState | null): PartnerRequestWorkflowState | null {
  if (workflow?.step === 'minting' && request.state === 'confirmed' && request.txHash) return { ...workflow, step: 'awaiting_finality', txHash: request.txHash };
  return workflow;
}

/** A request as operators see it: what is stored, and (when asked) where its workflow stands. */
export function requestView(request: PartnerRequestRecord, workflow?: PartnerRequestWorkflowState | null): PartnerRequest {
  return {
    issuerRequestId: request.issuerRequestId,
    type: request.kind,
    status: partnerStatus(request.state),
    state: request.state,
    clientId: request.clientId,
    chainId: request.chain,
    network: networkOfChain(request.chain),
    underlyingSymbol: request.underlyingSymbol,
    tokenSymbol: request.tokenSymbol,
    walletAddress: request.wallet,
    qty: request.qty,
    tokenAmount: request.tokenAmount,
    sharesMultiplier: request.sharesMultiplier,
    shareDust: request.shareDust,
    notionalUsd: request.notionalUsd,
    sessionStart: request.sessionStart,
    tokenizationRequestId: request.tokenizationRequestId,
    confirmStatus: request.confirmStatus,
    txHash: request.txHash,
    reason: request.reason,
    createdAt: request.createdAt.getTime(),
    updatedAt: request.updatedAt.getTime(),
    ...(workflow === undefined ? {} : { workflow: workflowView(request, workflow) }),
  };
}
