/** The allow-list routes' parameters, body and answer: a wallet on any chain, checked as that chain writes it. */
import { z } from 'zod';
import type { ErrorCode } from '../../../domain/error-codes';
import { isEvmChain, type Chain } from '../../../domain/chains';
import { isValidSolanaAddress } from '../../../signing';
import type { AllowListRecord } from '../../../db/queries/allow-list';
import { chainParam } from '../chains/params';
import { accountParams } from './wallet-params';
import type { AllowList } from './schemas';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export const allowedWalletParams = accountParams
  .extend({
    chainId: chainParam,
    address: z.string().max(44).describe('The wallet: a 0x-prefixed 20-byte hex address on an EVM chain (any case), a base58 32-byte public key on Solana.'),
  })
  .superRefine(({ chainId, address }, context) => {
    if (isEvmChain(chainId) ? EVM_ADDRESS.test(address) : isValidSolanaAddress(address)) return;
    context.addIssue({
      code: 'custom',
      path: ['address'],
      message: isEvmChain(chainId) ? `must be a 0x-prefixed 20-byte hex address on ${chainId}` : `must be a base58 32-byte public key on ${chainId}`,
    });
  });

export const ALLOWED_WALLET_FIELD_CODES: Partial<Record<string, ErrorCode>> = { chainId: 'INVALID_GM_CHAIN', address: 'INVALID_WALLET_ADDRESS' };

export const allowListRequirementBody = z.strictObject({
  required: z.boolean({ error: 'must be true or false' }).describe('Whether the account trades only through listed wallets.'),
});

export function allowListView(list: AllowListRecord): AllowList {
  return {
    accountId: list.accountId,
    required: list.required,
    // The table holds the chains of domain/chains.ts only (a CHECK constraint).
    wallets: list.wallets.map((wallet) => ({ chainId: wallet.chain as Chain, address: wallet.address, addedAt: wallet.addedAt.getTime() })),
  };
}
