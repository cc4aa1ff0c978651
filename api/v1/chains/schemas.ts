/** The answers of the chains resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { decimalString } from '../../../domain/json-formats';
import { component } from '../../contract/components';

export const chainBalancesSchema = component(
  'ChainBalances',
  z.object({
    tokens: z
      .array(
        z.object({
          tokenAddress: z.string().describe('The token contract on the chain.'),
          tokenSymbol: z.string(),
          balances: z
            .array(
              z.object({
                holderAddress: z.object({ account: z.string().describe('The holder, lower-case.') }),
                balance: decimalString.describe('Tokens, a decimal with up to 18 digits after the point.'),
              }),
            )
            .describe('Every holder with a balance, by address.'),
        }),
      )
      .describe('Each of the product’s tokens on the chain (or the one asked for), by address.'),
  }),
);
export type ChainBalances = z.infer<typeof chainBalancesSchema>;

export const tokenInfoSchema = component(
  'TokenInfo',
  z.object({
    token: z.object({
      tokenAddress: z.string().describe('The token contract, lower-case.'),
      tokenName: z.string().describe('As the contract names itself.'),
      tokenSymbol: z.string(),
      tokenDecimals: z.int().nonnegative(),
      tokenSupply: z.object({ value: decimalString.describe('The total supply at the chain’s last final block, in tokens, up to 18 digits after the point.') }),
    }),
  }),
);
export type TokenInfo = z.infer<typeof tokenInfoSchema>;
