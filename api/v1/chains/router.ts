/** The chains resource: what the product's tokens are and who holds them, per chain. */
import type { Resource } from '../../contract/operation';
import { balancesOperation } from './balances';
import { tokenInfoOperation } from './token-info';

export const chainsResource: Resource = {
  tag: 'Chains',
  description: "On-chain data of the product's tokens: holders' balances as the chain watcher recorded them, and each token contract's description and supply.",
  operations: [balancesOperation, tokenInfoOperation],
};
