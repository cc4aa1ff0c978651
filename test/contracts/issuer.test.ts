/** The issuer contract on a local chain: partner mints signed by the broker, redemptions, and every refusal. */
import { keccak256, parseEventLogs, toBytes, zeroAddress, type Address, type Hex } from 'viem';
import { issuerAbi, stockTokenAbi } from '../../contracts/abi';
import { MINT_REQUEST_TYPE, MINT_REQUEST_TYPES, issuerDomain, signMintRequest, type MintRequest } from '../../contracts/mint-request';
import { ROLES } from '../../contracts/roles';
import { hashTypedData } from 'viem';
import { CHAIN_ID, USER_A, accounts, startContractsChain, type ContractsChain } from './fixture';

let chain: ContractsChain;
let aapl: Address;
let tsla: Address;
let nextRequest = 1;

beforeAll(async () => {
  chain = await startContractsChain();
  aapl = chain.contracts.tokens.AAPLon!;
  tsla = chain.contracts.tokens.TSLAon!;
}, 60_000);

afterAll(async () => {
  await chain?.anvil.stop();
});

const issuer = () => ({ address: chain.contracts.issuer, abi: issuerAbi });

function request(overrides: Partial<MintRequest> = {}): MintRequest {
  const n = nextRequest++;
  return {
    tokenizationRequestId: `tr-${n}`,
    underlyingSymbol: 'AAPL',
    tokenSymbol: 'AAPLon',
    qty: 2_500_000_000n, // 2.5 shares, 9 decimals
    wallet: accounts.userA.address,
    network: 'ethereum',
    clientAccountId: 'client-1',
    created: 1_790_000_000n,
    nonce: BigInt(n),
    ...overrides,
  };
}

async function brokerSignature(req: MintRequest, signer = accounts.broker): Promise<Hex> {
  return signMintRequest(signer, req, issuerDomain(CHAIN_ID, chain.contracts.issuer));
}

function processMint(req: MintRequest, signature: Hex, amount = req.qty * 10n ** 9n) {
  return { ...issuer(), functionName: 'processMint', args: [req, signature, amount] } as const;
}

const redeem = (token: Address, amount: bigint) => ({ ...issuer(), functionName: 'redeem', args: [token, amount] }) as const;

async function approveIssuer(token: Address, from = accounts.userA) {
  await chain.write(from, { address: token, abi: stockTokenAbi, functionName: 'approve', args: [chain.contracts.issuer, 2n ** 255n] });
}

describe('issuer contract', () => {
  it('hashes a mint request as the broker signs it', async () => {
    expect(await chain.publicClient.readContract({ ...issuer(), functionName: 'MINT_REQUEST_TYPEHASH' })).toBe(keccak256(toBytes(MINT_REQUEST_TYPE)));
    const req = request();
    expect(await chain.publicClient.readContract({ ...issuer(), functionName: 'hashMintRequest', args: [req] })).toBe(
      hashTypedData({ domain: issuerDomain(CHAIN_ID, chain.contracts.issuer), types: MINT_REQUEST_TYPES, primaryType: 'MintRequest', message: req }),
    );
  });

  it('finds each token by its symbol', async () => {
    expect(await chain.publicClient.readContract({ ...issuer(), functionName: 'tokenBySymbol', args: ['AAPLon'] })).toBe(aapl);
    expect(await chain.publicClient.readContract({ ...issuer(), functionName: 'tokenBySymbol', args: ['TSLAon'] })).toBe(tsla);
  });

  it('mints a broker-signed request to the registered wallet', async () => {
    const req = request();
    const amount = 2_500_000_000n * 10n ** 9n;
    const receipt = await chain.write(accounts.admin, processMint(req, await brokerSignature(req)));

    expect(await chain.balanceOf(aapl, accounts.userA.address)).toBe(amount);
    const [event] = parseEventLogs({ abi: issuerAbi, logs: receipt.logs, eventName: 'IssuerMint' });
    expect(event!.args).toEqual({
      wallet: accounts.userA.address,
      userId: USER_A,
      token: aapl,
      amount,
      requestIdHash: keccak256(toBytes(req.tokenizationRequestId)),
      tokenizationRequestId: req.tokenizationRequestId,
    });
  });

  it('burns redeemed tokens and reports their reference value', async () => {
    await chain.write(accounts.admin, { ...issuer(), functionName: 'setReferencePrice', args: [aapl, 200n * 10n ** 18n] });
    await approveIssuer(aapl);
    const before = await chain.balanceOf(aapl, accounts.userA.address);
    const supplyBefore = await chain.publicClient.readContract({ address: aapl, abi: stockTokenAbi, functionName: 'totalSupply' });

    const receipt = await chain.write(accounts.userA, redeem(aapl, 15n * 10n ** 17n));

    expect(await chain.balanceOf(aapl, accounts.userA.address)).toBe(before - 15n * 10n ** 17n);
    expect(await chain.balanceOf(aapl, chain.contracts.issuer)).toBe(0n);
    expect(await chain.publicClient.readContract({ address: aapl, abi: stockTokenAbi, functionName: 'totalSupply' })).toBe(
      supplyBefore - 15n * 10n ** 17n,
    );
    const [event] = parseEventLogs({ abi: issuerAbi, logs: receipt.logs, eventName: 'IssuerRedeem' });
    expect(event!.args).toEqual({
      wallet: accounts.userA.address,
      userId: USER_A,
      token: aapl,
      amount: 15n * 10n ** 17n,
      usdNotional: 300n * 10n ** 18n,
    });
  });

  describe('refuses to mint', () => {
    it('for anyone but the submitter', async () => {
      const req = request();
      expect(await chain.revertOf(accounts.broker, processMint(req, await brokerSignature(req)))).toEqual({
        errorName: 'AccessControlUnauthorizedAccount',
        args: [accounts.broker.address, ROLES.submitter],
      });
    });

    it('a tokenization request processed before, even with a new nonce', async () => {
      const req = request();
      await chain.write(accounts.admin, processMint(req, await brokerSignature(req)));
      const again = { ...req, nonce: req.nonce + 1_000n };
      expect(await chain.revertOf(accounts.admin, processMint(again, await brokerSignature(again)))).toEqual({
        errorName: 'TokenizationRequestAlreadyProcessed',
        args: [keccak256(toBytes(req.tokenizationRequestId))],
      });
    });

    it("a broker nonce used before", async () => {
      const first = request();
      await chain.write(accounts.admin, processMint(first, await brokerSignature(first)));
      const second = request({ nonce: first.nonce });
      expect(await chain.revertOf(accounts.admin, processMint(second, await brokerSignature(second)))).toEqual({
        errorName: 'BrokerNonceUsed',
        args: [accounts.broker.address, first.nonce],
      });
    });

    it('a signer without the broker role, and a malformed signature', async () => {
      const req = request();
      expect(await chain.revertOf(accounts.admin, processMint(req, await brokerSignature(req, accounts.attestationSigner)))).toEqual({
        errorName: 'SignerNotBroker',
        args: [accounts.attestationSigner.address],
      });
      expect(await chain.revertOf(accounts.admin, processMint(req, '0x1234'))).toEqual({ errorName: 'InvalidBrokerSignature', args: [] });
    });

    it('more than the request signed for (the submitter cannot inflate it)', async () => {
      const req = request();
      const signature = await brokerSignature(req);
      const max = req.qty * 10n ** 9n;
      expect(await chain.revertOf(accounts.admin, processMint(req, signature, max + 1n))).toEqual({
        errorName: 'AmountExceedsRequest',
        args: [max + 1n, max],
      });
      expect(await chain.revertOf(accounts.admin, processMint({ ...req, qty: req.qty * 2n }, signature, max * 2n))).toMatchObject({
        errorName: 'SignerNotBroker',
      });
      expect(await chain.revertOf(accounts.admin, processMint(req, signature, 0n))).toEqual({ errorName: 'ZeroAmount', args: [] });
    });

    it('to a wallet that is not registered', async () => {
      const req = request({ wallet: accounts.stranger.address });
      expect(await chain.revertOf(accounts.admin, processMint(req, await brokerSignature(req)))).toEqual({
        errorName: 'WalletNotRegistered',
        args: [accounts.stranger.address],
      });
    });

    it('a token it does not issue', async () => {
      const req = request({ tokenSymbol: 'MSFTon' });
      expect(await chain.revertOf(accounts.admin, processMint(req, await brokerSignature(req)))).toEqual({
        errorName: 'UnknownTokenSymbol',
        args: ['MSFTon'],
      });
    });

    it('a paused token, and anything while the issuer contract is paused', async () => {
      const req = request({ tokenSymbol: 'TSLAon' });
      const signature = await brokerSignature(req);
      await chain.write(accounts.admin, { address: tsla, abi: stockTokenAbi, functionName: 'pause' });
      expect(await chain.revertOf(accounts.admin, processMint(req, signature))).toEqual({ errorName: 'TokenPaused', args: [tsla] });
      await chain.write(accounts.admin, { address: tsla, abi: stockTokenAbi, functionName: 'unpause' });

      await chain.write(accounts.admin, { ...issuer(), functionName: 'pause' });
      expect(await chain.revertOf(accounts.admin, processMint(req, signature))).toEqual({ errorName: 'EnforcedPause', args: [] });
      expect(await chain.revertOf(accounts.userA, redeem(aapl, 1n))).toEqual({ errorName: 'EnforcedPause', args: [] });
      await chain.write(accounts.admin, { ...issuer(), functionName: 'unpause' });

      await chain.write(accounts.admin, processMint(req, signature));
      expect(await chain.balanceOf(tsla, accounts.userA.address)).toBe(req.qty * 10n ** 9n);
    });
  });

  describe('refuses to redeem', () => {
    it('from a wallet that is not registered', async () => {
      expect(await chain.revertOf(accounts.stranger, redeem(aapl, 1n))).toEqual({
        errorName: 'WalletNotRegistered',
        args: [accounts.stranger.address],
      });
    });

    it('a token it does not issue, a paused token, or nothing', async () => {
      expect(await chain.revertOf(accounts.userA, redeem(chain.contracts.stablecoin, 1n))).toEqual({
        errorName: 'UnmanagedToken',
        args: [chain.contracts.stablecoin],
      });
      expect(await chain.revertOf(accounts.userA, redeem(aapl, 0n))).toEqual({ errorName: 'ZeroAmount', args: [] });
      await chain.write(accounts.admin, { address: aapl, abi: stockTokenAbi, functionName: 'pause' });
      expect(await chain.revertOf(accounts.userA, redeem(aapl, 1n))).toEqual({ errorName: 'TokenPaused', args: [aapl] });
      await chain.write(accounts.admin, { address: aapl, abi: stockTokenAbi, functionName: 'unpause' });
    });
  });

  describe('administration', () => {
    it('maps a symbol only to a token carrying that symbol, and prices only its tokens', async () => {
      expect(await chain.revertOf(accounts.admin, { ...issuer(), functionName: 'setToken', args: ['AAPLon', zeroAddress] })).toEqual({
        errorName: 'ZeroAddress',
        args: [],
      });
      expect(await chain.revertOf(accounts.admin, { ...issuer(), functionName: 'setToken', args: ['TSLAon', aapl] })).toEqual({
        errorName: 'TokenSymbolMismatch',
        args: ['TSLAon', 'AAPLon'],
      });
      expect(
        await chain.revertOf(accounts.admin, { ...issuer(), functionName: 'setReferencePrice', args: [chain.contracts.stablecoin, 1n] }),
      ).toEqual({ errorName: 'UnmanagedToken', args: [chain.contracts.stablecoin] });
      expect(await chain.revertOf(accounts.userA, { ...issuer(), functionName: 'setToken', args: ['AAPLon', aapl] })).toEqual({
        errorName: 'AccessControlUnauthorizedAccount',
        args: [accounts.userA.address, ROLES.admin],
      });
    });
  });
});
