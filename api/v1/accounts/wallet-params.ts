/** The accounts resource's parameters and wallet view, shared by its routes. */
import { z } from 'zod';
import type { ErrorCode } from '../../../domain/error-codes';
import { parameterText } from '../../framework/parameters';
import type { WalletRecord } from '../../../db/queries/wallets';
import { EVM_CHAINS } from '../../../chains/networks';
import type { Wallet } from './schemas';

const evmChain = z.enum(EVM_CHAINS, { error: `must be an EVM chain: ${EVM_CHAINS.join(', ')}` });
const walletAddress = z.string({ error: 'must be a string' }).regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

export const accountParams = z.object({ accountId: parameterText(100).min(1).describe('The account.') });
export const walletParams = accountParams.extend({ chainId: evmChain.describe('The EVM chain.'), address: walletAddress.describe('The wallet.') });
export const walletBody = z.strictObject({
  chainId: evmChain.describe('The EVM chain whose identity registry holds the wallet.'),
  address: walletAddress.describe('The wallet, a 0x-prefixed 20-byte hex address.'),
});

export const WALLET_FIELD_CODES: Partial<Record<string, ErrorCode>> = { chainId: 'INVALID_GM_CHAIN', address: 'INVALID_WALLET_ADDRESS' };

export function walletView(wallet: WalletRecord): Wallet {
  return {
    accountId: wallet.accountId,
    // The table holds wallets of the EVM chains only (a CHECK constraint).
    chainId: wallet.chain as Wallet['chainId'],
    address: wallet.address,
    userId: wallet.userId,
    state: wallet.state,
    txHash: wallet.txHash,
    error: wallet.error,
    updatedAt: wallet.updatedAt.getTime(),
  };
}
