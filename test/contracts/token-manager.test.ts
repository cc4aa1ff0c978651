/** The token manager on a local chain: attestations signed by the API's signer code, executed and refused. */
import { bytesToHex, createWalletClient, decodeEventLog, getAddress, http, keccak256, parseEventLogs, toBytes, type Address, type Hex } from 'viem';
import { stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../../contracts/abi';
import { QUOTE_TYPE, ZERO_BYTES32, evmDomain, hashEvmQuote, signEvmQuote, type Quote } from '../../signing';
import { CHAIN_ID, USER_A, USER_B, USER_STABLECOIN, accounts, chainNow, startContractsChain, type ContractsChain } from './fixture';

let chain: ContractsChain;
let aapl: Address;
let tsla: Address;
let nextAttestationId = 1_000n;

beforeAll(async () => {
  chain = await startContractsChain();
  aapl = chain.contracts.tokens.AAPLon!;
  tsla = chain.contracts.tokens.TSLAon!;
}, 60_000);

afterAll(async () => {
  await chain?.anvil.stop();
});

/** $100.0000001 a token: quantity × price is not a whole number of stablecoin units, so rounding shows. */
const PRICE = 100_000_000_100_000_000_000n;

async function quote(overrides: Partial<Quote> = {}): Promise<Quote> {
  return {
    chainId: BigInt(CHAIN_ID),
    attestationId: nextAttestationId++,
    userId: USER_A,
    asset: aapl,
    price: PRICE,
    quantity: 10n ** 18n,
    expiration: (await chainNow(chain)) + 60n,
    side: 0,
    additionalData: ZERO_BYTES32,
    ...overrides,
  };
}

async function sign(q: Quote, signer = accounts.attestationSigner): Promise<Hex> {
  return bytesToHex(await signEvmQuote(signer, q, evmDomain('ethereum-1', chain.contracts.tokenManager)));
}

/** The quote as the contract's ABI types it (an EVM asset address). */
const onChain = (q: Quote) => ({ ...q, asset: q.asset as Address });

const manager = () => ({ address: chain.contracts.tokenManager, abi: tokenManagerAbi });

function mint(q: Quote, signature: Hex, maxDeposit = 10n ** 18n, depositToken = chain.contracts.stablecoin) {
  return { ...manager(), functionName: 'mintWithAttestation', args: [onChain(q), signature, depositToken, maxDeposit] } as const;
}

function redeem(q: Quote, signature: Hex, minReceive = 0n, receiveToken = chain.contracts.stablecoin) {
  return { ...manager(), functionName: 'redeemWithAttestation', args: [onChain(q), signature, receiveToken, minReceive] } as const;
}

async function approve(token: Address, from = accounts.userA, amount = 2n ** 255n) {
  await chain.write(from, { address: token, abi: stablecoinAbi, functionName: 'approve', args: [chain.contracts.tokenManager, amount] });
}

describe('token manager', () => {
  it('hashes a quote exactly as the API signs it', async () => {
    expect(await chain.publicClient.readContract({ ...manager(), functionName: 'QUOTE_TYPEHASH' })).toBe(keccak256(toBytes(QUOTE_TYPE)));
    const q = await quote({ additionalData: `0x${'ab'.repeat(32)}`, side: 1 });
    expect(await chain.publicClient.readContract({ ...manager(), functionName: 'hashQuote', args: [onChain(q)] })).toBe(
      hashEvmQuote(q, evmDomain('ethereum-1', chain.contracts.tokenManager)),
    );
  });

  it('mints against a signed buy quote, charging the cost rounded up', async () => {
    await approve(chain.contracts.stablecoin);
    const q = await quote({ additionalData: `0x${'cd'.repeat(32)}` });
    // 1 token × $100.0000001 = 100.0000001 USD → 100.000001 in 6 decimals (rounded up).
    const cost = 100_000_001n;
    const signature = await sign(q);
    expect(await chain.revertOf(accounts.userA, mint(q, signature, cost - 1n))).toEqual({
      errorName: 'DepositAboveMaximum',
      args: [cost, cost - 1n],
    });

    const receipt = await chain.write(accounts.userA, mint(q, signature, cost));

    expect(await chain.balanceOf(aapl, accounts.userA.address)).toBe(10n ** 18n);
    expect(await chain.balanceOf(chain.contracts.stablecoin, accounts.userA.address)).toBe(USER_STABLECOIN - cost);
    const [event] = parseEventLogs({ abi: tokenManagerAbi, logs: receipt.logs, eventName: 'TradeExecuted' });
    expect(event!.args).toEqual({
      executionId: 1n,
      attestationId: q.attestationId,
      chainId: 1n,
      userId: USER_A,
      side: 0,
      asset: aapl,
      price: PRICE,
      quantity: 10n ** 18n,
      expiration: q.expiration,
      additionalData: q.additionalData,
    });
    expect(await chain.publicClient.readContract({ ...manager(), functionName: 'attestationUsed', args: [q.attestationId] })).toBe(true);
  });

  it('redeems against a signed sell quote, paying the proceeds rounded down from the reserve', async () => {
    const reserveBefore = await chain.balanceOf(chain.contracts.stablecoin, chain.contracts.tokenManager);
    const userStableBefore = await chain.balanceOf(chain.contracts.stablecoin, accounts.userA.address);
    const supplyBefore = await chain.publicClient.readContract({ address: aapl, abi: stockTokenAbi, functionName: 'totalSupply' });
    await approve(aapl);
    const q = await quote({ side: 1, quantity: 5n * 10n ** 17n });
    // 0.5 token × $100.0000001 = 50.00000005 USD → 50.000000 in 6 decimals (rounded down).
    const proceeds = 50_000_000n;
    const signature = await sign(q);
    expect(await chain.revertOf(accounts.userA, redeem(q, signature, proceeds + 1n))).toEqual({
      errorName: 'ReceiveBelowMinimum',
      args: [proceeds, proceeds + 1n],
    });

    const receipt = await chain.write(accounts.userA, redeem(q, signature, proceeds));

    expect(await chain.balanceOf(aapl, accounts.userA.address)).toBe(5n * 10n ** 17n);
    expect(await chain.publicClient.readContract({ address: aapl, abi: stockTokenAbi, functionName: 'totalSupply' })).toBe(
      supplyBefore - 5n * 10n ** 17n,
    );
    expect(await chain.balanceOf(chain.contracts.stablecoin, accounts.userA.address)).toBe(userStableBefore + proceeds);
    expect(await chain.balanceOf(chain.contracts.stablecoin, chain.contracts.tokenManager)).toBe(reserveBefore - proceeds);
    const log = receipt.logs.find((entry) => entry.address.toLowerCase() === chain.contracts.tokenManager.toLowerCase())!;
    const event = decodeEventLog({ abi: tokenManagerAbi, ...log });
    expect(event.eventName).toBe('TradeExecuted');
    expect(event.args).toMatchObject({ executionId: 2n, attestationId: q.attestationId, side: 1, quantity: 5n * 10n ** 17n });
  });

  describe('refuses', () => {
    it('a quote for the other side', async () => {
      const sell = await quote({ side: 1 });
      expect(await chain.revertOf(accounts.userA, mint(sell, await sign(sell)))).toEqual({ errorName: 'SideMismatch', args: [0, 1] });
      const buy = await quote();
      expect(await chain.revertOf(accounts.userA, redeem(buy, await sign(buy)))).toEqual({ errorName: 'SideMismatch', args: [1, 0] });
    });

    it('a quote for another chain', async () => {
      const q = await quote({ chainId: 56n });
      const signature = bytesToHex(await signEvmQuote(accounts.attestationSigner, q, evmDomain('bsc-56', chain.contracts.tokenManager)));
      expect(await chain.revertOf(accounts.userA, mint(q, signature))).toEqual({ errorName: 'WrongChainId', args: [56n, 1n] });
    });

    it('an expired quote', async () => {
      const q = await quote({ expiration: (await chainNow(chain)) - 1n });
      const result = await chain.revertOf(accounts.userA, mint(q, await sign(q)));
      expect(result.errorName).toBe('QuoteExpired');
      expect(result.args[0]).toBe(q.expiration);
    });

    it('a quote executed before', async () => {
      const q = await quote();
      const signature = await sign(q);
      await chain.write(accounts.userA, mint(q, signature));
      expect(await chain.revertOf(accounts.userA, mint(q, signature))).toEqual({
        errorName: 'AttestationAlreadyUsed',
        args: [q.attestationId],
      });
    });

    it('a signature by another key, over other fields, or malformed', async () => {
      const q = await quote();
      const invalid = { errorName: 'InvalidAttestationSignature', args: [] };
      expect(await chain.revertOf(accounts.userA, mint(q, await sign(q, accounts.broker)))).toEqual(invalid);
      expect(await chain.revertOf(accounts.userA, mint({ ...q, price: q.price - 1n }, await sign(q)))).toEqual(invalid);
      expect(await chain.revertOf(accounts.userA, mint(q, '0x1234'))).toEqual(invalid);
    });

    it('a token it does not manage', async () => {
      const q = await quote({ asset: chain.contracts.stablecoin });
      expect(await chain.revertOf(accounts.userA, mint(q, await sign(q)))).toEqual({
        errorName: 'UnmanagedToken',
        args: [chain.contracts.stablecoin],
      });
      await chain.write(accounts.admin, { ...manager(), functionName: 'setManagedToken', args: [tsla, false] });
      const unmanaged = await quote({ asset: tsla });
      expect(await chain.revertOf(accounts.userA, mint(unmanaged, await sign(unmanaged)))).toEqual({ errorName: 'UnmanagedToken', args: [tsla] });
      await chain.write(accounts.admin, { ...manager(), functionName: 'setManagedToken', args: [tsla, true] });
    });

    it('a paused token', async () => {
      await chain.write(accounts.admin, { address: tsla, abi: stockTokenAbi, functionName: 'pause' });
      const q = await quote({ asset: tsla });
      expect(await chain.revertOf(accounts.userA, mint(q, await sign(q)))).toEqual({ errorName: 'TokenPaused', args: [tsla] });
      await chain.write(accounts.admin, { address: tsla, abi: stockTokenAbi, functionName: 'unpause' });
      await chain.write(accounts.userA, mint(q, await sign(q)));
      expect(await chain.balanceOf(tsla, accounts.userA.address)).toBe(10n ** 18n);
    });

    it("a user id that is not the caller's", async () => {
      const q = await quote({ userId: USER_A });
      const signature = await sign(q);
      expect(await chain.revertOf(accounts.userB, mint(q, signature))).toEqual({
        errorName: 'UserIdMismatch',
        args: [accounts.userB.address, USER_B, USER_A],
      });
      expect(await chain.revertOf(accounts.stranger, mint(q, signature))).toEqual({
        errorName: 'UserIdMismatch',
        args: [accounts.stranger.address, ZERO_BYTES32, USER_A],
      });
    });

    it('a deposit or receive token it does not settle in', async () => {
      const buy = await quote();
      expect(await chain.revertOf(accounts.userA, mint(buy, await sign(buy), 10n ** 18n, tsla))).toEqual({
        errorName: 'UnsupportedSettlementToken',
        args: [tsla],
      });
      const sell = await quote({ side: 1 });
      expect(await chain.revertOf(accounts.userA, redeem(sell, await sign(sell), 0n, tsla))).toEqual({
        errorName: 'UnsupportedSettlementToken',
        args: [tsla],
      });
    });

    it('a redemption its reserve cannot pay', async () => {
      const reserve = await chain.balanceOf(chain.contracts.stablecoin, chain.contracts.tokenManager);
      // 0.1 token at $10^12 each: 10^11 USD, far above the reserve.
      const q = await quote({ side: 1, quantity: 10n ** 17n, price: 10n ** 30n });
      expect(await chain.revertOf(accounts.userA, redeem(q, await sign(q)))).toEqual({
        errorName: 'InsufficientReserve',
        args: [chain.contracts.stablecoin, reserve, 10n ** 17n],
      });
    });

    it('every execution while paused, and pausing by anyone but a pauser', async () => {
      expect(await chain.revertOf(accounts.userA, { ...manager(), functionName: 'pause' })).toEqual({
        errorName: 'AccessControlUnauthorizedAccount',
        args: [accounts.userA.address, keccak256(toBytes('PAUSER_ROLE'))],
      });
      await chain.write(accounts.admin, { ...manager(), functionName: 'pause' });
      const q = await quote();
      expect(await chain.revertOf(accounts.userA, mint(q, await sign(q)))).toEqual({ errorName: 'EnforcedPause', args: [] });
      await chain.write(accounts.admin, { ...manager(), functionName: 'unpause' });
    });
  });

  describe('administration', () => {
    it('honours a new attestation signer and no longer the old one', async () => {
      const newSigner = accounts.broker;
      expect(
        await chain.revertOf(accounts.userA, { ...manager(), functionName: 'setAttestationSigner', args: [newSigner.address] }),
      ).toEqual({ errorName: 'AccessControlUnauthorizedAccount', args: [accounts.userA.address, ZERO_BYTES32] });
      await chain.write(accounts.admin, { ...manager(), functionName: 'setAttestationSigner', args: [newSigner.address] });
      const q = await quote();
      expect((await chain.revertOf(accounts.userA, mint(q, await sign(q)))).errorName).toBe('InvalidAttestationSignature');
      await chain.write(accounts.userA, mint(q, await sign(q, newSigner)));
      await chain.write(accounts.admin, { ...manager(), functionName: 'setAttestationSigner', args: [accounts.attestationSigner.address] });
    });

    it('refuses the zero address as signer, managed token or settlement token', async () => {
      const zero = '0x0000000000000000000000000000000000000000';
      const refused = { errorName: 'ZeroAddress', args: [] };
      expect(await chain.revertOf(accounts.admin, { ...manager(), functionName: 'setAttestationSigner', args: [zero] })).toEqual(refused);
      expect(await chain.revertOf(accounts.admin, { ...manager(), functionName: 'setManagedToken', args: [zero, true] })).toEqual(refused);
      expect(await chain.revertOf(accounts.admin, { ...manager(), functionName: 'setSettlementToken', args: [zero, true] })).toEqual(refused);
    });

    it('refuses a settlement token with more than 18 decimals', async () => {
      // A contract whose every call returns 24: init code copying a 10-byte runtime `return uint256(24)`.
      const runtime = '601860005260206000f3';
      const deployer = createWalletClient({ account: accounts.admin, transport: http(chain.anvil.rpcUrl), chain: chain.publicClient.chain });
      const tx = await deployer.sendTransaction({ data: `0x600a600c600039600a6000f3${runtime}`, to: null });
      const { contractAddress } = await chain.publicClient.waitForTransactionReceipt({ hash: tx });
      expect(await chain.revertOf(accounts.admin, { ...manager(), functionName: 'setSettlementToken', args: [contractAddress!, true] })).toEqual({
        errorName: 'SettlementTokenDecimalsTooLarge',
        args: [getAddress(contractAddress!), 24],
      });
    });
  });
});
