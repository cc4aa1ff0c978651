/**
 * GET /v1/chains/{chainId}/tokens/{tokenAddress}/info — one of the product's tokens as its contract describes itself:
 * name, symbol and decimals, and its total supply at the chain's last final block (under the chain's finality rule).
 */
import { z } from 'zod';
import { finalBlockNumber } from '../../../chains/finality';
import { tokenSupplyAt } from '../../../chains/token-supply';
import { stockTokenAbi } from '../../../contracts/abi';
import { tokenSymbolOf } from '../../../db/queries/chain-deployments';
import { ApiError } from '../../../domain/errors';
import { formatDecimal, fromScaledInteger } from '../../../domain/money';
import { defineOperation } from '../../contract/operation';
import { CHAIN_PARAM_CODES, chainContextOf, chainParam, evmAddress } from './params';
import { tokenInfoSchema, type TokenInfo } from './schemas';

export const tokenInfoOperation = defineOperation({
  method: 'get',
  path: '/v1/chains/{chainId}/tokens/{tokenAddress}/info',
  operationId: 'getTokenInfo',
  summary: 'A token contract on a chain',
  description:
    "The token's name, symbol and decimals as its contract answers them, and its total supply at the chain's last final block (zero before the token existed there). Read on chain: 503 CHAIN_UNAVAILABLE when this service does not reach the chain (Solana's token reads are not served).",
  access: 'read',
  params: z.object({ chainId: chainParam, tokenAddress: evmAddress.describe('The token contract, in any case.') }),
  fieldCodes: CHAIN_PARAM_CODES,
  answers: { 200: { description: 'The token.', schema: tokenInfoSchema } },
  errors: ['ASSET_NOT_FOUND', 'CHAIN_UNAVAILABLE'],
  handler: (services) => async (ctx, { params }) => {
    const { chainId: chain, tokenAddress } = params;
    const context = chainContextOf(services, chain);
    if (!(await tokenSymbolOf(services.db, chain, tokenAddress))) throw new ApiError('ASSET_NOT_FOUND', `No token of this service is at ${tokenAddress} on ${chain}`);
    const { client } = context;
    const read = (functionName: 'name' | 'symbol' | 'decimals') => client.readContract({ address: tokenAddress, abi: stockTokenAbi, functionName });
    const head = Number(await client.getBlockNumber({ cacheTime: 0 }));
    const finalBlock = await finalBlockNumber(client, context.finality, head);
    const [name, symbol, decimals, supply] = await Promise.all([
      read('name'),
      read('symbol'),
      read('decimals'),
      finalBlock < 0 ? 0n : tokenSupplyAt(client, tokenAddress, finalBlock),
    ]);
    const answer: TokenInfo = {
      token: {
        tokenAddress,
        tokenName: name as string,
        tokenSymbol: symbol as string,
        tokenDecimals: Number(decimals),
        tokenSupply: { value: formatDecimal(fromScaledInteger(supply, Number(decimals)), Number(decimals)) },
      },
    };
    ctx.body = answer;
  },
});
