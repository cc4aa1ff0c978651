/**
 * The product's contracts on each chain, deployed once: a deployment recorded in PostgreSQL is reused while its
 * token manager still has code on the chain (a restart of a persistent chain); otherwise — first start, or a
 * chain whose state was lost — the contracts are deployed and recorded, with every catalogue token's address.
 */
import type { LocalAccount } from 'viem';
import type { AssetDefinition } from '../domain/catalogue';
import type { Database } from '../db/pool';
import { findChainDeployment, recordChainDeployment, type ChainDeploymentRecord } from '../db/queries/chains';
import type { ChainContext } from './context';
import { deployContracts } from './deploy';

export interface EnsureDeploymentParameters {
  db: Database;
  context: ChainContext;
  /** Deploys, and holds every admin, registrar and submitter role. */
  issuer: LocalAccount;
  /** The attestation signer the token manager checks quotes against. */
  attestationSigner: `0x${string}`;
  /** The brokerage partner's signer, allowed to sign mint requests for the issuer contract. */
  brokerSigner?: `0x${string}`;
  assets: readonly AssetDefinition[];
}

export interface EnsuredDeployment {
  deployment: ChainDeploymentRecord;
  /** True when this call deployed the contracts. */
  deployed: boolean;
}

export async function ensureDeployment(parameters: EnsureDeploymentParameters): Promise<EnsuredDeployment> {
  const { db, context, issuer } = parameters;
  const { network, client } = context;
  const recorded = await findChainDeployment(db, network.chain);
  if (recorded && recorded.chainId === network.chainId) {
    const code = await client.getCode({ address: recorded.tokenManager });
    if (code !== undefined && code !== '0x') return { deployment: recorded, deployed: false };
  }
  const contracts = await deployContracts({
    rpcUrl: network.rpcUrl,
    chainId: network.chainId,
    deployer: issuer,
    tokens: parameters.assets.map((asset) => ({ symbol: asset.symbol, name: asset.name })),
    attestationSigner: parameters.attestationSigner,
    brokerSigner: parameters.brokerSigner,
  });
  const deployment: ChainDeploymentRecord = {
    chain: network.chain,
    chainId: network.chainId,
    tokenManager: contracts.tokenManager,
    issuer: contracts.issuer,
    registry: contracts.registry,
    stablecoin: contracts.stablecoin,
    deployer: issuer.address,
    deployedBlock: Number(contracts.deployedBlock),
  };
  await recordChainDeployment(db, deployment, contracts.tokens);
  return { deployment, deployed: true };
}
