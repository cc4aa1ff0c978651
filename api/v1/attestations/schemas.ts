/** The answers of the attestations resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { epochMs } from '../../../domain/json-formats';
import { component } from '../../contract/components';

const bareChainId = z
  .string()
  .regex(/^\d+$/)
  .describe('The bare chain id: `1` (ethereum-1), `56` (bsc-56) or `900` (solana-900).');
const scaledInteger = z.string().regex(/^\d+$/);

const quoteFields = {
  chainId: bareChainId,
  symbol: z.string().describe('The token.'),
  ticker: z.string().describe('The stock behind the token.'),
  assetAddress: z.string().describe('The token contract on the chain.'),
  side: z.enum(['0', '1']).describe('`0` buy (mint), `1` sell (redeem).'),
  tokenAmount: scaledInteger.describe('Tokens, as an integer scaled by 18 decimals.'),
  price: scaledInteger.describe('Price per token in the settlement token, as an integer scaled by 18 decimals.'),
};

export const softQuoteSchema = component(
  'SoftQuote',
  z.object(quoteFields).describe('A non-binding price: no id, no signature, counts against no limit.'),
);
export type SoftQuote = z.infer<typeof softQuoteSchema>;

const attestationFields = {
  attestationId: z.string().regex(/^\d{1,39}$/).describe('A 128-bit id as a decimal string.'),
  userId: z.string().describe("The account's on-chain user id (hex) the signature binds."),
  ...quoteFields,
  expiration: z.int().nonnegative().describe('Unix epoch **seconds** after which the contract refuses it.'),
  signature: z
    .string()
    .describe("Base64 signature: EIP-712 over the quote on EVM chains; on solana-900 the issuer's ed25519 signature over the message of the transaction in `additionalData`."),
  additionalData: z
    .string()
    .describe("Base64: 32 zero bytes on EVM chains; on solana-900 the wire transaction for `userAddress`, signed by the issuer, that the user's wallet signs and sends."),
};

export const attestationSchema = component('Attestation', z.object(attestationFields).describe('A signed attestation to submit on-chain.'));
export type Attestation = z.infer<typeof attestationSchema>;

export const attestationRecordSchema = component(
  'AttestationRecord',
  z
    .object({
      ...attestationFields,
      state: z
        .enum(['outstanding', 'executing', 'executed', 'expired'])
        .describe(
          '`outstanding` until its execution is seen on-chain (`executing`: counted against the limits until final), `executed` once that block is final, or past its expiration `expired` (even before that is recorded). An execution whose block leaves the chain puts it back to `outstanding` (or `expired`).',
        ),
      executionTxHash: z.string().nullable().describe('The transaction that executed it: final once `executed`, seen on-chain while `executing`.'),
      executionBlockNumber: z.int().nonnegative().nullable().describe('The block holding that transaction; null until seen.'),
      confirmations: z
        .int()
        .nonnegative()
        .nullable()
        .describe('While `executing`: blocks on the chain from the execution’s block to the head the watcher last saw, that block included (1 = just included); null otherwise.'),
      stateChangedAt: epochMs
        .nullable()
        .describe('When the change was recorded (the block time of the execution, also while executing, or the expiry); null until it is.'),
    })
    .describe('An attestation as issued, with its state.'),
);
export type AttestationRecord = z.infer<typeof attestationRecordSchema>;

export const attestationPageSchema = component(
  'AttestationPage',
  z.object({
    attestations: z.array(attestationRecordSchema).describe('Newest first.'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
  }),
);
export type AttestationPage = z.infer<typeof attestationPageSchema>;

const publicDomainSchema = z.object({
  name: z.string(),
  version: z.string(),
  chainId: z.int().describe('The bare chain id, as EIP-712 tooling takes it.'),
  verifyingContract: z.string().describe("The chain's token manager."),
});

export const signersSchema = component(
  'AttestationSigners',
  z
    .object({
      evm: z.object({
        address: z.string().describe('The EIP-712 signer of attestations on every EVM chain.'),
        domains: z.record(z.string(), publicDomainSchema).describe('The EIP-712 domain per EVM chain whose token manager is deployed, keyed like `ethereum-1`.'),
        settlementTokens: z
          .record(z.string(), z.object({ address: z.string().describe('The ERC-20 contract.'), decimals: z.int().nonnegative() }))
          .describe(
            "The stablecoin a mint pays in (approve the token manager for it first) and a redemption is paid in, per EVM chain this API reaches, keyed like `ethereum-1`.",
          ),
      }),
      solana: z.object({
        publicKey: z.string().describe('The ed25519 signer of solana-900 attestations, base58.'),
        message: z.string().describe('What the signature covers: the message of the transaction in `additionalData`.'),
        stablecoinMint: z.string().optional().describe('The stablecoin mint a Solana attestation pays or is paid in, base58.'),
        stablecoinDecimals: z.number().int().optional().describe("The stablecoin mint's decimals."),
        treasury: z.string().optional().describe("The issuer's stablecoin token account a buy pays into and a sell is paid from, base58."),
        tokenDecimals: z.number().int().optional().describe("The stock tokens' mints' decimals."),
      }),
    })
    .describe('What verifying an attestation takes.'),
);
