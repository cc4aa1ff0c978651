/**
 * GET /v1/chains/{chainId}/balances — every holder of each of the product's tokens on a chain, as the chain watcher's
 * recorded Transfer logs add them up (seen and final; a reorganisation takes back what left the chain). Optionally
 * of one token, one holder, or both.
 */
import { z } from 'zod';
import { chainTokenAddresses, findChainDeployment } from '../../../db/queries/chain-deployments';
import { listTokenBalances } from '../../../db/queries/token-transfers';
import { tokenDecimals } from '../../../domain/chains';
import { ApiError } from '../../../domain/errors';
import { formatDecimal, fromScaledInteger } from '../../../domain/money';
import { defineOperation } from '../../contract/operation';
import { CHAIN_PARAM_CODES, chainParam, evmAddress } from './params';
import { chainBalancesSchema, type ChainBalances } from './schemas';

const balancesQuery = z.object({
  tokenAddress: evmAddress.optional().describe('Only this token contract.'),
  userAddress: evmAddress.optional().describe('Only this holder.'),
});

export const balancesOperation = defineOperation({
  method: 'get',
  path: '/v1/chains/{chainId}/balances',
  operationId: 'listChainBalances',
  summary: "Holders of the tokens on a chain",
  description:
    "Each of the product's tokens on the chain with every holder's balance, as the chain watcher's recorded Transfer logs add up: a transfer counts once its block is seen, and no longer once a reorganisation took that block off the chain. `tokenAddress` and `userAddress` narrow the answer to one token, one holder, or both. Never read from the chain per request.",
  access: 'read',
  params: z.object({ chainId: chainParam }),
  query: balancesQuery,
  fieldCodes: CHAIN_PARAM_CODES,
  answers: { 200: { description: 'The balances, by token address then holder address.', schema: chainBalancesSchema } },
  errors: ['CHAIN_UNAVAILABLE'],
  handler: (services) => async (ctx, { params, query }) => {
    const chain = params.chainId;
    if (!(await findChainDeployment(services.db, chain))) throw new ApiError('CHAIN_UNAVAILABLE', `No contracts are deployed on ${chain} here`);
    const [addresses, balances] = await Promise.all([
      chainTokenAddresses(services.db, chain),
      listTokenBalances(services.db, chain, { token: query.tokenAddress, holder: query.userAddress }),
    ]);
    const decimals = tokenDecimals(chain);
    const tokens = Object.entries(addresses)
      .map(([symbol, address]) => ({ tokenAddress: address.toLowerCase(), tokenSymbol: symbol }))
      .filter((token) => query.tokenAddress === undefined || token.tokenAddress === query.tokenAddress)
      .sort((a, b) => a.tokenAddress.localeCompare(b.tokenAddress));
    const answer: ChainBalances = {
      tokens: tokens.map((token) => ({
        ...token,
        balances: balances
          .filter((record) => record.token === token.tokenAddress)
          .map((record) => ({ holderAddress: { account: record.holder }, balance: formatDecimal(fromScaledInteger(BigInt(record.balance), decimals), decimals) })),
      })),
    };
    ctx.body = answer;
  },
});
