/**
 * Deploys the product's contracts on one EVM chain: the settlement stablecoin, the identity
 * registry, the token manager, the issuer contract and one stock token per symbol; grants the
 * roles and funds the token manager's stablecoin reserve.
 *
 * Fast on purpose (about twenty tokens on two chains at every start-up): two batches, the
 * deployments and then the configuration. Within a batch, gas is estimated for every transaction at
 * once, each is signed locally with an explicit nonce and sent without waiting for its receipt; the
 * deployer waits only at the end of each batch. Contract addresses are known in advance from the
 * deployer's nonces, so the tokens are born with their supply roles.
 */
import {
  createPublicClient,
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

interface PlannedTransaction {
  what: string;
  /** Absent for a deployment. */
  to?: Address;
  data: Hex;
  /** For a deployment: where the contract must land. */
  expectedAddress?: Address;
}

interface PendingTransaction extends PlannedTransaction {
  hash: Hash;
}

/** Gas limit = estimate × 120 %: room for state that moved between estimate and inclusion; unused gas is not paid. */
const GAS_HEADROOM_PERCENT = 120n;

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

  const actualChainId = await publicClient.getChainId();
  if (actualChainId !== chainId) {
    throw new DeploymentError(`${parameters.rpcUrl} is chain ${actualChainId}, expected ${chainId}`);
  }
  const firstNonce = await publicClient.getTransactionCount({ address: deployer.address, blockTag: 'pending' });
  const fees = await publicClient.estimateFeesPerGas();
  let nonce = firstNonce;

  /**
   * Sends a batch of independent transactions: gas is estimated for all of them at once (they
   * depend only on earlier batches), then each is signed with the next nonce and sent without
   * waiting; the batch ends when every receipt is in and successful.
   */
  const sendBatch = async (batch: readonly PlannedTransaction[]) => {
    const gasLimits = await Promise.all(
      batch.map(({ what, to, data }) =>
        publicClient.estimateGas({ account: deployer, to, data }).catch((error: unknown) => {
          throw new DeploymentError(`deployment on chain ${chainId}: ${what} would fail`, { cause: error });
        }),
      ),
    );
    const pending: PendingTransaction[] = [];
    for (const [index, planned] of batch.entries()) {
      const serialized = await deployer.signTransaction({
        type: 'eip1559',
        chainId,
        to: planned.to ?? null,
        data: planned.data,
        nonce: nonce++,
        gas: (gasLimits[index]! * GAS_HEADROOM_PERCENT) / 100n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      try {
        pending.push({ ...planned, hash: await publicClient.sendRawTransaction({ serializedTransaction: serialized }) });
      } catch (error) {
        throw new DeploymentError(`deployment on chain ${chainId} failed to send: ${planned.what}`, { cause: error });
      }
    }
    return confirm(publicClient, chainId, pending);
  };

  // Addresses follow from the deployer's nonces, in the order of the first batch.
  const addressAt = (offset: number) => getContractAddress({ from: deployer.address, nonce: BigInt(firstNonce + offset) });
  const addresses = {
    stablecoin: addressAt(0),
    registry: addressAt(1),
    tokenManager: addressAt(2),
    issuer: addressAt(3),
  };
  const tokens = Object.fromEntries(parameters.tokens.map((token, index) => [token.symbol, addressAt(4 + index)]));

  const deploy = (what: string, abi: Abi, bytecode: Hex, args: readonly unknown[], address: Address): PlannedTransaction => ({
    what,
    data: encodeDeployData({ abi, bytecode, args }),
    expectedAddress: address,
  });
  const receipts = await sendBatch([
    deploy('Stablecoin', stablecoinAbi, stablecoinBytecode, [STABLECOIN_NAME, STABLECOIN_SYMBOL], addresses.stablecoin),
    deploy('IdentityRegistry', identityRegistryAbi, identityRegistryBytecode, [deployer.address], addresses.registry),
    deploy(
      'TokenManager',
      tokenManagerAbi,
      tokenManagerBytecode,
      [deployer.address, addresses.registry, parameters.attestationSigner],
      addresses.tokenManager,
    ),
    deploy('Issuer', issuerAbi, issuerBytecode, [deployer.address, addresses.registry], addresses.issuer),
    ...parameters.tokens.map((token) =>
      deploy(
        `StockToken ${token.symbol}`,
        stockTokenAbi,
        stockTokenBytecode,
        [token.name, token.symbol, deployer.address, [addresses.tokenManager, addresses.issuer]],
        tokens[token.symbol]!,
      ),
    ),
  ]);

  const call = (what: string, to: Address, abi: Abi, functionName: string, args: readonly unknown[]): PlannedTransaction => ({
    what,
    to,
    data: encodeFunctionData({ abi, functionName, args }),
  });
  await sendBatch([
    call('registrar role', addresses.registry, identityRegistryAbi, 'grantRole', [
      ROLES.registrar,
      parameters.registrar ?? deployer.address,
    ]),
    call('submitter role', addresses.issuer, issuerAbi, 'grantRole', [ROLES.submitter, parameters.submitter ?? deployer.address]),
    ...(parameters.brokerSigner === undefined
      ? []
      : [call('broker signer role', addresses.issuer, issuerAbi, 'grantRole', [ROLES.brokerSigner, parameters.brokerSigner])]),
    call('settlement token', addresses.tokenManager, tokenManagerAbi, 'setSettlementToken', [addresses.stablecoin, true]),
    call('stablecoin reserve', addresses.stablecoin, stablecoinAbi, 'mint', [
      addresses.tokenManager,
      parameters.stablecoinReserve ?? DEFAULT_STABLECOIN_RESERVE,
    ]),
    ...Object.entries(tokens).flatMap(([symbol, token]) => [
      call(`manage ${symbol}`, addresses.tokenManager, tokenManagerAbi, 'setManagedToken', [token, true]),
      call(`issue ${symbol}`, addresses.issuer, issuerAbi, 'setToken', [symbol, token]),
    ]),
  ]);

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
