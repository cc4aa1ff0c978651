/**
 * The contracts on a local anvil chain for one test file: deployed by anvil account 0 (admin,
 * registrar, submitter), quotes signed by account 1, mint requests signed by the broker (account 2),
 * and two registered users (accounts 3 and 4) funded with stablecoin; account 7 is never registered.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  defineChain,
  http,
  type Abi,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { identityRegistryAbi, issuerAbi, stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../../contracts/abi';
import { anvilDevAccount, startAnvil, type RunningAnvil } from '../../chains/anvil';
import { deployContracts, type DeployedContracts } from '../../chains/deploy';

export const CHAIN_ID = 1;
export const USER_A = `0x${'a1'.repeat(32)}` as Hex;
export const USER_B = `0x${'b2'.repeat(32)}` as Hex;
export const USER_STABLECOIN = 1_000_000n * 10n ** 6n;
export const TOKENS = [
  { symbol: 'AAPLon', name: 'Apple (tokenized)' },
  { symbol: 'TSLAon', name: 'Tesla (tokenized)' },
] as const;

const account = (index: number) => privateKeyToAccount(anvilDevAccount(index).privateKey);

export const accounts = {
  admin: account(0),
  attestationSigner: account(1),
  broker: account(2),
  userA: account(3),
  userB: account(4),
  stranger: account(7),
};

const ALL_ERRORS: Abi = [...identityRegistryAbi, ...issuerAbi, ...stablecoinAbi, ...stockTokenAbi, ...tokenManagerAbi].filter(
  (item) => item.type === 'error',
);

export async function startContractsChain() {
  const anvil: RunningAnvil = await startAnvil({ chainId: CHAIN_ID });
  try {
    const chain = defineChain({
      id: CHAIN_ID,
      name: 'test',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
    });
    const transport = http(anvil.rpcUrl);
    const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
    const testClient = createTestClient({ chain, transport, mode: 'anvil' });
    const contracts: DeployedContracts = await deployContracts({
      rpcUrl: anvil.rpcUrl,
      chainId: CHAIN_ID,
      deployer: accounts.admin,
      tokens: TOKENS,
      attestationSigner: accounts.attestationSigner.address,
      brokerSigner: accounts.broker.address,
    });

    /** Sends a transaction from `from` and waits for it; fails the test if it reverts. */
    async function write(
      from: PrivateKeyAccount,
      request: { address: Address; abi: Abi; functionName: string; args?: readonly unknown[] },
    ) {
      const wallet = createWalletClient({ chain, transport, account: from });
      const hash = await wallet.writeContract({ ...request, args: request.args ?? [] } as never);
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`${request.functionName} reverted`);
      return receipt;
    }

    /**
     * Runs the call as `from` without sending it and returns the name and arguments of the custom
     * error it reverts with (decoded against every contract's errors); fails if it does not revert.
     */
    async function revertOf(
      from: PrivateKeyAccount,
      request: { address: Address; abi: Abi; functionName: string; args?: readonly unknown[] },
    ): Promise<{ errorName: string; args: readonly unknown[] }> {
      try {
        await publicClient.simulateContract({ ...request, args: request.args ?? [], account: from } as never);
      } catch (error) {
        const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
        if (reverted instanceof ContractFunctionRevertedError && reverted.raw) {
          const decoded = decodeErrorResult({ abi: ALL_ERRORS, data: reverted.raw });
          return { errorName: decoded.errorName, args: decoded.args ?? [] };
        }
        throw error;
      }
      throw new Error(`${request.functionName} did not revert`);
    }

    const balanceOf = (token: Address, owner: Address) =>
      publicClient.readContract({ address: token, abi: stockTokenAbi, functionName: 'balanceOf', args: [owner] });

    await write(accounts.admin, { address: contracts.registry, abi: identityRegistryAbi, functionName: 'register', args: [accounts.userA.address, USER_A] });
    await write(accounts.admin, { address: contracts.registry, abi: identityRegistryAbi, functionName: 'register', args: [accounts.userB.address, USER_B] });
    for (const user of [accounts.userA, accounts.userB, accounts.stranger]) {
      await write(accounts.admin, { address: contracts.stablecoin, abi: stablecoinAbi, functionName: 'mint', args: [user.address, USER_STABLECOIN] });
    }

    return { anvil, publicClient, testClient, contracts, write, revertOf, balanceOf };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

export type ContractsChain = Awaited<ReturnType<typeof startContractsChain>>;

/** The latest block's timestamp (epoch seconds). */
export async function chainNow(chain: ContractsChain): Promise<bigint> {
  return (await chain.publicClient.getBlock()).timestamp;
}
