/** The identity registry, the stock tokens and the stablecoin on a local chain: writes, roles and refusals. */
import { parseEventLogs, zeroAddress } from 'viem';
import { identityRegistryAbi, stablecoinAbi, stockTokenAbi } from '../../contracts/abi';
import { ROLES } from '../../contracts/roles';
import { ZERO_BYTES32 } from '../../signing';
import { TOKENS, USER_A, USER_B, accounts, startContractsChain, type ContractsChain } from './fixture';

let chain: ContractsChain;

beforeAll(async () => {
  chain = await startContractsChain();
}, 60_000);

afterAll(async () => {
  await chain?.anvil.stop();
});

const registry = () => ({ address: chain.contracts.registry, abi: identityRegistryAbi });
const userIdOf = (wallet: `0x${string}`) => chain.publicClient.readContract({ ...registry(), functionName: 'userIdOf', args: [wallet] });

describe('identity registry', () => {
  it('registers a wallet to a user, accepts the same registration again, and unregisters it', async () => {
    const wallet = accounts.broker.address;
    const first = await chain.write(accounts.admin, { ...registry(), functionName: 'register', args: [wallet, USER_A] });
    expect(parseEventLogs({ abi: identityRegistryAbi, logs: first.logs, eventName: 'WalletRegistered' })[0]!.args).toEqual({ wallet, userId: USER_A });
    expect(await userIdOf(wallet)).toBe(USER_A);

    const again = await chain.write(accounts.admin, { ...registry(), functionName: 'register', args: [wallet, USER_A] });
    expect(again.logs).toHaveLength(0);

    const removed = await chain.write(accounts.admin, { ...registry(), functionName: 'unregister', args: [wallet] });
    expect(parseEventLogs({ abi: identityRegistryAbi, logs: removed.logs, eventName: 'WalletUnregistered' })[0]!.args).toEqual({
      wallet,
      userId: USER_A,
    });
    expect(await userIdOf(wallet)).toBe(ZERO_BYTES32);
  });

  it('refuses the zero address, a zero user id, a wallet of another user, and unregistering an unknown wallet', async () => {
    const register = (wallet: `0x${string}`, userId: `0x${string}`) => ({ ...registry(), functionName: 'register', args: [wallet, userId] }) as const;
    expect(await chain.revertOf(accounts.admin, register(zeroAddress, USER_A))).toEqual({ errorName: 'ZeroAddress', args: [] });
    expect(await chain.revertOf(accounts.admin, register(accounts.stranger.address, ZERO_BYTES32))).toEqual({ errorName: 'ZeroUserId', args: [] });
    expect(await chain.revertOf(accounts.admin, register(accounts.userA.address, USER_B))).toEqual({
      errorName: 'WalletRegisteredToAnotherUser',
      args: [accounts.userA.address, USER_A],
    });
    expect(await chain.revertOf(accounts.admin, { ...registry(), functionName: 'unregister', args: [accounts.stranger.address] })).toEqual({
      errorName: 'WalletNotRegistered',
      args: [accounts.stranger.address],
    });
    expect(await userIdOf(accounts.userA.address)).toBe(USER_A);
  });

  it('is written only by a registrar', async () => {
    expect(await chain.revertOf(accounts.userA, { ...registry(), functionName: 'register', args: [accounts.userA.address, USER_B] })).toEqual({
      errorName: 'AccessControlUnauthorizedAccount',
      args: [accounts.userA.address, ROLES.registrar],
    });
    expect(await chain.revertOf(accounts.userA, { ...registry(), functionName: 'unregister', args: [accounts.userA.address] })).toEqual({
      errorName: 'AccessControlUnauthorizedAccount',
      args: [accounts.userA.address, ROLES.registrar],
    });
  });
});

describe('stock token', () => {
  const token = () => ({ address: chain.contracts.tokens.AAPLon!, abi: stockTokenAbi });

  it('carries the catalogue name and symbol, 18 decimals, and supply roles for the token manager and issuer only', async () => {
    const read = (functionName: 'name' | 'symbol' | 'decimals') => chain.publicClient.readContract({ ...token(), functionName });
    expect(await read('name')).toBe(TOKENS[0].name);
    expect(await read('symbol')).toBe('AAPLon');
    expect(await read('decimals')).toBe(18);
    for (const role of [ROLES.minter, ROLES.burner]) {
      const has = (account: `0x${string}`) => chain.publicClient.readContract({ ...token(), functionName: 'hasRole', args: [role, account] });
      expect(await has(chain.contracts.tokenManager)).toBe(true);
      expect(await has(chain.contracts.issuer)).toBe(true);
      expect(await has(accounts.admin.address)).toBe(false);
    }
  });

  it('refuses mint, burn and pause to accounts without the role', async () => {
    expect(await chain.revertOf(accounts.admin, { ...token(), functionName: 'mint', args: [accounts.admin.address, 1n] })).toEqual({
      errorName: 'AccessControlUnauthorizedAccount',
      args: [accounts.admin.address, ROLES.minter],
    });
    expect(await chain.revertOf(accounts.userA, { ...token(), functionName: 'burn', args: [1n] })).toEqual({
      errorName: 'AccessControlUnauthorizedAccount',
      args: [accounts.userA.address, ROLES.burner],
    });
    expect(await chain.revertOf(accounts.userA, { ...token(), functionName: 'pause' })).toEqual({
      errorName: 'AccessControlUnauthorizedAccount',
      args: [accounts.userA.address, ROLES.pauser],
    });
  });

  it('stops transfers while paused', async () => {
    await chain.write(accounts.admin, { ...token(), functionName: 'pause' });
    expect(await chain.revertOf(accounts.userA, { ...token(), functionName: 'transfer', args: [accounts.userB.address, 0n] })).toEqual({
      errorName: 'EnforcedPause',
      args: [],
    });
    await chain.write(accounts.admin, { ...token(), functionName: 'unpause' });
    await chain.write(accounts.userA, { ...token(), functionName: 'transfer', args: [accounts.userB.address, 0n] });
  });
});

describe('stablecoin', () => {
  const stablecoin = () => ({ address: chain.contracts.stablecoin, abi: stablecoinAbi });

  it('has 6 decimals and funds the token manager reserve', async () => {
    expect(await chain.publicClient.readContract({ ...stablecoin(), functionName: 'decimals' })).toBe(6);
    expect(await chain.balanceOf(chain.contracts.stablecoin, chain.contracts.tokenManager)).toBe(1_000_000n * 10n ** 6n);
  });

  it('is minted by its deployer only', async () => {
    expect(await chain.revertOf(accounts.userA, { ...stablecoin(), functionName: 'mint', args: [accounts.userA.address, 1n] })).toEqual({
      errorName: 'UnauthorizedMinter',
      args: [accounts.userA.address],
    });
  });
});
