/** The finality rule of each chain, as the configuration states it (CHAIN_FINALITY_ETHEREUM, CHAIN_FINALITY_BSC). */
import { chainFinality } from '../../../chains/finality';
import { loadConfig } from '../../../config';

const finalityOf = (env: NodeJS.ProcessEnv) => chainFinality(loadConfig(['CHAIN_FINALITY_ETHEREUM', 'CHAIN_FINALITY_BSC'], env));

test.each([
  [{}, { 'ethereum-1': { tag: 'finalized' }, 'bsc-56': { tag: 'finalized' } }],
  [{ CHAIN_FINALITY_ETHEREUM: 'safe' }, { 'ethereum-1': { tag: 'safe' }, 'bsc-56': { tag: 'finalized' } }],
  [{ CHAIN_FINALITY_ETHEREUM: '64', CHAIN_FINALITY_BSC: '15' }, { 'ethereum-1': { depth: 64 }, 'bsc-56': { depth: 15 } }],
  [{ CHAIN_FINALITY_BSC: '0' }, { 'ethereum-1': { tag: 'finalized' }, 'bsc-56': { depth: 0 } }],
])('%j reads as %j', (env, expected) => {
  expect(finalityOf(env)).toEqual(expected);
});

test.each(['latest', '-1', '3.5', 'finalised', ''])('CHAIN_FINALITY_BSC=%j stops the process with the variable named', (value) => {
  expect(() => finalityOf({ CHAIN_FINALITY_BSC: value })).toThrow(/invalid configuration: CHAIN_FINALITY_BSC: must be finalized, safe or a block depth/);
});
