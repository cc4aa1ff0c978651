/** The answers of the accounts resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { EVM_CHAINS } from '../../../chains/networks';
import { CHAINS } from '../../../domain/chains';
import { epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';

export const walletSchema = component(
  'Wallet',
  z.object({
    accountId: z.string(),
    chainId: z.enum(EVM_CHAINS),
    address: z.string().regex(/^0x[0-9a-f]{40}$/).describe('The wallet, lowercase.'),
    userId: z.string().describe("The account's on-chain user id the registry maps the wallet to."),
    state: z
      .enum(['registering', 'registered', 'unregistering', 'unregistered', 'failed'])
      .describe('`registering` and `unregistering` while the workflow writes the registry; `failed` with `error` when it could not.'),
    txHash: z.string().nullable().describe('The registry transaction, once sent.'),
    error: z.string().nullable().describe('Why the last change failed.'),
    updatedAt: epochMs.describe('When the state last changed.'),
  }),
);
export type Wallet = z.infer<typeof walletSchema>;

export const walletListSchema = component('WalletList', z.object({ wallets: z.array(walletSchema).describe('By chain, then address; unregistered ones left out.') }));
export type WalletList = z.infer<typeof walletListSchema>;

export const allowListSchema = component(
  'AllowList',
  z.object({
    accountId: z.string(),
    required: z
      .boolean()
      .describe(
        "Whether the account trades only through listed wallets: when true, a Solana attestation's `userAddress` and every wallet registered to the account on an EVM chain must be listed on that chain, or the attestation is 403 `INVALID_ADDRESS`. False by default.",
      ),
    wallets: z
      .array(
        z.object({
          chainId: z.enum(CHAINS),
          address: z.string().describe('The wallet: lowercase hex on an EVM chain, base58 on Solana.'),
          addedAt: epochMs.describe('When it was listed.'),
        }),
      )
      .describe('By chain, then address.'),
  }),
);
export type AllowList = z.infer<typeof allowListSchema>;
