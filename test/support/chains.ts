/**
 * A local EVM chain for a test file (harness/local-chain.ts), with the test signers' EVM key as the attestation
 * signer.
 */
import type { Database } from '../../db/pool';
import { startLocalChain, type LocalChain } from '../../harness/local-chain';
import { DEFAULT_CHAIN, type EvmChain } from '../../domain/chains';
import { testSigners } from './api';

export type TestChain = LocalChain;

/** `brokerSigner`: granted BROKER_SIGNER_ROLE on the issuer contract (the partner flow's mint requests). */
export function startTestChain(db: Database, chain: EvmChain = DEFAULT_CHAIN, options: { brokerSigner?: `0x${string}` } = {}): Promise<TestChain> {
  return startLocalChain({ db, chain, attestationSigner: testSigners().evm.address, brokerSigner: options.brokerSigner });
}
