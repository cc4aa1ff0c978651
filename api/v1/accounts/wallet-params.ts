/** The accounts resource's parameters and wallet view, shared by its routes. */
import { z } from 'zod';
import type { ErrorCode } from '../../../domain/error-codes';
import type { WalletRecord } from '../../../db/queries/wallets';
import { EVM_CHAINS } from '../../../chains/networks';

const evmChain = z.enum(EVM_CHAINS, { error: `must be an EVM chain: ${EVM_CHAINS.join(', ')}` });
const walletAddress = z.string({ error: 'must be a string' }).regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');

export const accountParams = z.object({ accountId: z.string().min(1).max(100) });
export const walletParams = accountParams.extend({ chainId: evmChain, address: walletAddress });
export const walletBody = z.strictObject({ chainId: evmChain, address: walletAddress });

export const WALLET_FIELD_CODES: Partial<Record<string, ErrorCode>> = { chainId: 'INVALID_CHAIN_ID', address: 'INVALID_WALLET_ADDRESS' };

export interface WalletView {
  accountId: string;
  chainId: string;
  address: string;
  userId: string;
  state: WalletRecord['state'];
  txHash: string | null;
  error: string | null;
  updatedAt: number;
}

export function walletView(wallet: WalletRecord): WalletView {
  return {
    accountId: wallet.accountId,
    chainId: wallet.chain,
    address: wallet.address,
    userId: wallet.userId,
    state: wallet.state,
    txHash: wallet.txHash,
    error: wallet.error,
    updatedAt: wallet.updatedAt.getTime(),
  };
}
