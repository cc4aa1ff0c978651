/**
 * Deploys the product's contracts on one EVM chain: the settlement stablecoin, the identity
 * registry, the token manager, the issuer contract and one stock token per symbol; grants the
 * roles and funds the token manager's stablecoin reserve.
 *
 * Fast on purpose (about twenty tokens on two chains at every start-up): every transaction carries
 * an explicit nonce and the deployer sends them one after another without waiting for receipts; it
 * waits only twice, once after the deployments (contract addresses are known in advance from the
 * deployer's nonces, so the tokens are born with their roles) and once after the configuration.
 */
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  http,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
} from 'viem';
import { identityRegistryAbi, issuerAbi, stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../contracts/abi';
import {
  identityRegistryBytecode,
  issuerBytecode,
  stablecoinBytecode,
  stockTokenBytecode,
  tokenManagerBytecode,
} from '../contracts/bytecode';
import { ROLES } from '../contracts/roles';

/** One million US dollars (6 decimals): the token manager's initial redemption reserve. */
export const DEFAULT_STABLECOIN_RESERVE = 1_000_000n * 10n ** 6n;
export const STABLECOIN_NAME = 'Development USD';
export const STABLECOIN_SYMBOL = 'USD';

export interface DeployContractsParameters {
  rpcUrl: string;
  chainId: number;
  /** Sends every transaction and keeps DEFAULT_ADMIN_ROLE and PAUSER_ROLE on every contract. */
  deployer: LocalAccount;
  tokens: readonly { symbol: string; name: string }[];
  /** The key whose quote signatures the token manager honours. */
  attestationSigner: Address;
  /** Granted BROKER_SIGNER_ROLE on the issuer contract when given. */
  brokerSigner?: Address;
  /** Granted SUBMITTER_ROLE on the issuer contract (default: the deployer). */
  submitter?: Address;
  /** Granted REGISTRAR_ROLE on the registry (default: the deployer). */
  registrar?: Address;
  /** Stablecoin minted to the token manager, in base units (default `DEFAULT_STABLECOIN_RESERVE`). */
  stablecoinReserve?: bigint;
}

export interface DeployedContracts {
  stablecoin: Address;
  registry: Address;
  tokenManager: Address;
  issuer: Address;
  /** Token address by symbol. */
  tokens: Record<string, Address>;
  /** The block holding the first deployment: where log scans of these contracts may start. */
  deployedBlock: bigint;
}
export type DeployContractsReturnType = DeployedContracts;

export class DeploymentError extends Error {
  override readonly name = 'DeploymentError';
}

interface PendingTransaction {
  what: string;
  hash: Hash;
  expectedAddress?: Address;
}

export async function deployContracts(parameters: DeployContractsParameters): Promise<DeployContractsReturnType> {
  const { deployer, chainId } = parameters;
  const chain = defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [parameters.rpcUrl] } },
  });
  const transport = http(parameters.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const walletClient = createWalletClient({ chain, transport, account: deployer });

  const actualChainId = await publicClient.getChainId();
  if (actualChainId !== chainId) {
    throw new DeploymentError(`${parameters.rpcUrl} is chain ${actualChainId}, expected ${chainId}`);
  }
  let nonce = await publicClient.getTransactionCount({ address: deployer.address, blockTag: 'pending' });
  const fees = await publicClient.estimateFeesPerGas();
  const addressAt = (offset: number) => getContractAddress({ from: deployer.address, nonce: BigInt(nonce + offset) });

  const send = async (what: string, to: Address | undefined, data: Hex, expectedAddress?: Address) => {
    try {
      const hash = await walletClient.sendTransaction({
        to: to ?? null,
        data,
        nonce: nonce++,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      return { what, hash, expectedAddress };
    } catch (error) {
      throw new DeploymentError(`deployment on chain ${chainId} failed to send: ${what}`, { cause: error });
    }
  };
  const deploy = (what: string, abi: Abi, bytecode: Hex, args: readonly unknown[]) =>
    send(what, undefined, encodeDeployData({ abi, bytecode, args }), addressAt(0));

  // Addresses follow from the deployer's nonces, in this order.
  const addresses = {
    stablecoin: addressAt(0),
    registry: addressAt(1),
    tokenManager: addressAt(2),
    issuer: addressAt(3),
  };
  const tokens = Object.fromEntries(parameters.tokens.map((token, index) => [token.symbol, addressAt(4 + index)]));

  const deployments: PendingTransaction[] = [];
  deployments.push(await deploy('Stablecoin', stablecoinAbi, stablecoinBytecode, [STABLECOIN_NAME, STABLECOIN_SYMBOL]));
  deployments.push(await deploy('IdentityRegistry', identityRegistryAbi, identityRegistryBytecode, [deployer.address]));
  deployments.push(
    await deploy('TokenManager', tokenManagerAbi, tokenManagerBytecode, [
      deployer.address,
      addresses.registry,
      parameters.attestationSigner,
    ]),
  );
  deployments.push(await deploy('Issuer', issuerAbi, issuerBytecode, [deployer.address, addresses.registry]));
  for (const token of parameters.tokens) {
    deployments.push(
      await deploy(`StockToken ${token.symbol}`, stockTokenAbi, stockTokenBytecode, [
        token.name,
        token.symbol,
        deployer.address,
        [addresses.tokenManager, addresses.issuer],
      ]),
    );
  }
  const receipts = await confirm(publicClient, chainId, deployments);

  const call = (what: string, to: Address, abi: Abi, functionName: string, args: readonly unknown[]) =>
    send(what, to, encodeFunctionData({ abi, functionName, args }));
  const configuration: PendingTransaction[] = [
    await call('registrar role', addresses.registry, identityRegistryAbi, 'grantRole', [
      ROLES.registrar,
      parameters.registrar ?? deployer.address,
    ]),
    await call('submitter role', addresses.issuer, issuerAbi, 'grantRole', [
      ROLES.submitter,
      parameters.submitter ?? deployer.address,
    ]),
    await call('settlement token', addresses.tokenManager, tokenManagerAbi, 'setSettlementToken', [addresses.stablecoin, true]),
    await call('stablecoin reserve', addresses.stablecoin, stablecoinAbi, 'mint', [
      addresses.tokenManager,
      parameters.stablecoinReserve ?? DEFAULT_STABLECOIN_RESERVE,
    ]),
  ];
  if (parameters.brokerSigner !== undefined) {
    configuration.push(
      await call('broker signer role', addresses.issuer, issuerAbi, 'grantRole', [ROLES.brokerSigner, parameters.brokerSigner]),
    );
  }
  for (const [symbol, token] of Object.entries(tokens)) {
    configuration.push(await call(`manage ${symbol}`, addresses.tokenManager, tokenManagerAbi, 'setManagedToken', [token, true]));
    configuration.push(await call(`issue ${symbol}`, addresses.issuer, issuerAbi, 'setToken', [symbol, token]));
  }
  await confirm(publicClient, chainId, configuration);

  return { ...addresses, tokens, deployedBlock: receipts[0]!.blockNumber };
}

async function confirm(
  publicClient: ReturnType<typeof createPublicClient>,
  chainId: number,
  transactions: readonly PendingTransaction[],
) {
  return Promise.all(
    transactions.map(async ({ what, hash, expectedAddress }) => {
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== 'success') {
        throw new DeploymentError(`deployment on chain ${chainId} reverted: ${what} (${hash})`);
      }
      if (expectedAddress !== undefined && receipt.contractAddress?.toLowerCase() !== expectedAddress.toLowerCase()) {
        throw new DeploymentError(
          `deployment on chain ${chainId}: ${what} landed at ${receipt.contractAddress}, expected ${expectedAddress} (was the deployer's nonce used elsewhere?)`,
        );
      }
      return receipt;
    }),
  );
}
