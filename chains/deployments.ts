/**
 * The product's contracts on each chain, deployed once: a deployment recorded in PostgreSQL is reused while its
 * token manager still has code on the chain (a restart of a persistent chain); otherwise — first start, or a
 * chain whose state was lost — the contracts are deployed and recorded, with every catalogue token's address.
 * A reused deployment is given the broker signer's role when it lacks it (a broker signer configured later).
 */
import type { LocalAccount } from 'viem';
import type { AssetDefinition } from '../domain/catalogue';
import type { Database } from '../db/pool';
import { findChainDeployment, recordChainDeployment, type ChainDeploymentRecord } from '../db/queries/chain-deployments';
import type { ChainContext } from './context';
import { issuerAbi } from '../contracts/abi';
import { ROLES } from '../contracts/roles';
import { deployContracts } from './deploy';
import { sendTransactionOnce } from './transactions';

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
    if (code !== undefined && code !== '0x') {
      if (parameters.brokerSigner) await grantBrokerSigner(parameters, recorded, parameters.brokerSigner);
      return { deployment: recorded, deployed: false };
    }
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

/** Grants BROKER_SIGNER_ROLE on the deployment's issuer contract, unless the signer holds it. */
async function grantBrokerSigner(parameters: EnsureDeploymentParameters, deployment: ChainDeploymentRecord, signer: `0x${string}`): Promise<void> {
  const { client, network } = parameters.context;
  const held = await client.readContract({ address: deployment.issuer, abi: issuerAbi, functionName: 'hasRole', args: [ROLES.brokerSigner, signer] });
  if (held) return;
  const sent = await sendTransactionOnce(parameters.db, {
    key: `broker-signer:${network.chain}:${deployment.issuer.toLowerCase()}:${signer.toLowerCase()}`,
    network,
    client,
    account: parameters.issuer,
    to: deployment.issuer,
    abi: issuerAbi,
    functionName: 'grantRole',
    args: [ROLES.brokerSigner, signer],
  });
  if (sent.status !== 'success') throw new Error(`granting the broker signer role on ${network.chain} reverted (${sent.txHash})`);
}
