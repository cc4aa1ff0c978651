/**
 * The attestation and soft-quote request bodies: their schema, the defaults (`duration` short,
 * `chainId` the first chain of domain/chains.ts) and the error code each field fails with. A refinement that needs another code than its
 * field's names it in `params.errorCode`.
 */
import { z } from 'zod';
import { chainIdSchema } from '../domain/chain-id';
import { CHAINS, DEFAULT_CHAIN, SOLANA_CHAIN } from '../domain/chains';
import type { ErrorCode } from '../domain/error-codes';
import { isValidSolanaAddress } from '../signing';

const DECIMAL = /^(0|[1-9]\d{0,14})(\.\d{1,18})?$/;
const amount = (field: string) =>
  z
    .string({ error: `${field} must be a decimal string` })
    .regex(DECIMAL, `${field} must be a decimal string with at most 18 digits after the point`)
    .refine((value) => !/^0(\.0+)?$/.test(value), `${field} must be greater than zero`);

const softQuoteFields = {
  symbol: z.string({ error: 'symbol must be a string' }).describe('The token.'),
  side: z.enum(['buy', 'sell'], { error: 'side must be buy or sell' }).describe('`buy` to mint, `sell` to redeem.'),
  tokenAmount: amount('tokenAmount').optional().describe('Tokens, a decimal with at most 18 decimals; send this or `notionalValue`.'),
  notionalValue: amount('notionalValue').optional().describe('USD value, a decimal with at most 18 decimals; send this or `tokenAmount`.'),
  /** Default `short`. */
  duration: z
    .enum(['short', 'long'], { error: 'duration must be short or long' })
    .default('short')
    .describe('`short` (the default) has the tighter spread, `long` the longer validity.'),
  chainId: chainIdSchema(`chainId must be one of ${CHAINS.join(', ')}`)
    .default(DEFAULT_CHAIN)
    .describe(`The chain; default \`${DEFAULT_CHAIN}\`. Solana's genesis hash names \`${SOLANA_CHAIN}\` too, as the reference issuer's pages spell it.`),
};

// Fields the schema does not name are dropped, not refused: the reference issuer's request schemas allow them.
export const softQuoteRequest = z.object(softQuoteFields);
export const attestationRequest = z
  .object({
    ...softQuoteFields,
    /** The user's Solana wallet: required for solana-900, where the signature binds it; refused on EVM chains. */
    userAddress: z
      .string({ error: 'userAddress must be a string' })
      .optional()
      .describe("The user's Solana wallet (base58): required for solana-900, refused on EVM chains."),
  })
  .superRefine((request, context) => {
    if (request.chainId !== SOLANA_CHAIN) {
      if (request.userAddress !== undefined) {
        context.addIssue({
          code: 'custom',
          path: ['userAddress'],
          message: `userAddress is only accepted for ${SOLANA_CHAIN}; on ${request.chainId} the signature binds the account's userId`,
        });
      }
      return;
    }
    if (request.userAddress === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['userAddress'],
        message: `userAddress is required for ${SOLANA_CHAIN} attestations`,
        params: { errorCode: 'MISSING_USER_ADDRESS' },
      });
    } else if (!isValidSolanaAddress(request.userAddress)) {
      context.addIssue({ code: 'custom', path: ['userAddress'], message: 'userAddress must be a base58 32-byte Solana public key' });
    }
  });

export type SoftQuoteRequest = z.infer<typeof softQuoteRequest>;
export type AttestationRequest = z.infer<typeof attestationRequest>;

/** The code a failing field answers with; a body that is not an object is INVALID_REQUEST_BODY. */
export const SOFT_QUOTE_FIELD_CODES: Partial<Record<keyof SoftQuoteRequest, ErrorCode>> = {
  symbol: 'INVALID_SYMBOL',
  side: 'INVALID_SIDE',
  tokenAmount: 'INVALID_TOKEN_AMOUNT',
  notionalValue: 'INVALID_NOTIONAL_VALUE',
  duration: 'INVALID_DURATION',
  chainId: 'INVALID_GM_CHAIN',
};
export const REQUEST_FIELD_CODES: Partial<Record<keyof AttestationRequest, ErrorCode>> = { ...SOFT_QUOTE_FIELD_CODES, userAddress: 'INVALID_USER_ADDRESS' };

/** Exactly one of tokenAmount and notionalValue: the message says which rule was broken. */
export function amountProblem(request: SoftQuoteRequest): string | undefined {
  if (request.tokenAmount !== undefined && request.notionalValue !== undefined) return 'send tokenAmount or notionalValue, not both';
  if (request.tokenAmount === undefined && request.notionalValue === undefined) return 'tokenAmount or notionalValue is required';
  return undefined;
}
