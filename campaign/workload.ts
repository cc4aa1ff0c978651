/**
 * The campaign's workload (issue 36): users, a partner and an operator acting on the product until the run ends, every
 * choice drawn from the seed (a stream forked per actor), every operation recorded as a ScheduledStep and every
 * request answered in the journal (campaign/journal.ts).
 * - Users (one per development wallet under the write key, and some on accounts of their own with write keys made in
 *   the database as `npm run keys` makes them: the API has no route that makes keys) request attestations on every
 *   chain, buys and sells, on several assets and both durations, then submit some on chain with their wallet (EVM:
 *   the token manager, the stablecoin approved once; Solana: the co-signed transaction completed and sent), some
 *   twice, some after they expired, some never; a sell is submitted only for tokens the user's earlier buys brought.
 * - The partner mints through the brokerage sandbox to a development wallet, reads its record back, and burns tokens
 *   it holds through the issuer contract for redemption.
 * - The operator pauses and resumes the market, an asset and a chain, schedules a corporate action (a split event with
 *   `updateSharesMultiplier`: no route nor `npm run ops` command changes a multiplier, and nothing in the product
 *   applies that flag yet) and deletes some, and resumes or rejects the partner requests waiting for review.
 * The draws of an operation (`drawOperation`, campaign/operations.ts) never depend on what the product answered, so a seed gives the same
 * sequence of operations whatever the faults did; what depends on answers (a sell's size) is drawn from a stream
 * forked for that operation.
 */
import {
  createKeyPairFromBytes,
  createSolanaRpc,
  getBase58Encoder,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  partiallySignTransaction,
} from '@solana/kit';
import { createPublicClient, createWalletClient, http, maxUint256, parseUnits, type Hex, type PublicClient, type WalletClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { evmNetwork, viemChain } from '../chains/networks';
import { issuerAbi, stablecoinAbi, stockTokenAbi, tokenManagerAbi } from '../contracts/abi';
import { EVM_CHAINS, SOLANA_CHAIN, type EvmChain } from '../domain/chains';
import { createPool } from '../db/pool';
import { createApiKey } from '../db/queries/api-keys';
import { journaledFetch, type JournaledAnswer, type Journal } from './journal';
import type { CampaignTarget, ScheduledStep } from './model';
import { drawGap, drawOperation, PARTNER_UNDERLYINGS, type Operation } from './operations';
import type { Random } from './random';

export interface WorkloadParameters {
  target: CampaignTarget;
  random: Random;
  journal: Journal;
  /** Aborted: every actor stops after its operation under way (an operator's pause is still resumed). */
  signal: AbortSignal;
  record(step: ScheduledStep): void;
  /** Operations a second, all actors together (default 2). */
  operationsPerSecond?: number;
  /** Users on the write key's account, each with a development wallet of its own (default: one per wallet). */
  users?: number;
  /**
   * Users on accounts of their own (default 2), each with a write key made as `npm run keys -- create --scope write`
   * makes one (the API has no route that makes keys): they attest on every chain and submit on Solana, where no
   * registry binds a wallet to an account; no EVM wallet is registered to their accounts, so none is sent there.
   */
  ownAccounts?: number;
}

interface EvmWallet {
  address: Hex;
  privateKey: Hex;
}

interface StackChains {
  [chain: string]: {
    rpcUrl: string;
    chainId?: number;
    contracts?: { tokenManager: Hex; issuer: Hex; stablecoin: Hex; tokens: Record<string, Hex> };
  };
}

/** The parts of stack.json the workload uses. */
function stackParts(target: CampaignTarget) {
  const { stack } = target;
  if (!stack.keys) throw new Error('the workload needs the development keys in stack.json (npm start on the embedded database)');
  return {
    keys: stack.keys,
    chains: stack.chains as StackChains,
    wallets: (stack.wallets ?? []) as EvmWallet[],
    solanaWallets: (stack.solanaWallets ?? []) as { address: string; secretKey: string }[],
    broker: stack.broker as { url: string; key: string; secret: string; accounts: { accountId: string }[] } | undefined,
    issuer: stack.issuer as { id: string } | undefined,
  };
}

/** One lock per wallet: sends of one account go one at a time, so two actors never race for a nonce. */
class WalletLocks {
  private readonly tails = new Map<string, Promise<unknown>>();
  run<T>(key: string, action: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(action, action);
    this.tails.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  }
}

/** Sleeps `ms`, or less when `signal` aborts (then resolves at once). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface Context {
  parameters: WorkloadParameters;
  parts: ReturnType<typeof stackParts>;
  locks: WalletLocks;
  evm: Partial<Record<EvmChain, { reader: PublicClient; network: ReturnType<typeof evmNetwork> }>>;
  /** Work left running past an operation (a late submission); awaited before the workload returns. */
  background: Set<Promise<void>>;
  /** Chain sends that failed, by reason, for the report (a refusal is expected: twice, late). */
  chainOutcomes: Record<string, number>;
}

/** The product API answers, through the journal. */
function api(context: Context, actor: string, random: Random, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, secret: string, body?: unknown): Promise<JournaledAnswer> {
  return journaledFetch(context.parameters.journal, { actor, api: random.pick(context.parameters.target.apiUrls), method, path, headers: { 'x-api-key': secret }, body });
}

function count(context: Context, outcome: string): void {
  context.chainOutcomes[outcome] = (context.chainOutcomes[outcome] ?? 0) + 1;
}

function walletClient(context: Context, chain: EvmChain, wallet: EvmWallet): WalletClient {
  return createWalletClient({ chain: viemChain(context.evm[chain]!.network), account: privateKeyToAccount(wallet.privateKey), transport: http(undefined, { retryCount: 0, timeout: 15_000 }) });
}

const hexOf = (base64: string): Hex => `0x${Buffer.from(base64, 'base64').toString('hex')}`;

interface AttestationBody {
  attestationId: string;
  chainId: string;
  userId: Hex;
  assetAddress: Hex;
  price: string;
  tokenAmount: string;
  expiration: number;
  side: string;
  additionalData: string;
  signature: string;
}

/** Sends an EVM attestation with the user's wallet (the stablecoin approved once per chain); 'success' or why not. */
async function executeOnEvm(context: Context, chain: EvmChain, wallet: EvmWallet, body: AttestationBody, approved: Set<string>): Promise<string> {
  const contracts = context.parts.chains[chain]?.contracts;
  const evm = context.evm[chain];
  if (!contracts || !evm) return 'no chain';
  return context.locks.run(`${chain}:${wallet.address}`, async () => {
    const client = walletClient(context, chain, wallet);
    try {
      if (!approved.has(chain)) {
        const approval = await client.writeContract({ address: contracts.stablecoin, abi: stablecoinAbi, functionName: 'approve', args: [contracts.tokenManager, maxUint256], chain: null, account: client.account! });
        await evm.reader.waitForTransactionReceipt({ hash: approval, timeout: 30_000 });
        approved.add(chain);
      }
      const quote = {
        chainId: BigInt(body.chainId),
        attestationId: BigInt(body.attestationId),
        userId: body.userId,
        asset: body.assetAddress,
        price: BigInt(body.price),
        quantity: BigInt(body.tokenAmount),
        expiration: BigInt(body.expiration),
        side: Number(body.side),
        additionalData: hexOf(body.additionalData),
      };
      const hash =
        body.side === '0'
          ? await client.writeContract({ address: contracts.tokenManager, abi: tokenManagerAbi, functionName: 'mintWithAttestation', args: [quote, hexOf(body.signature), contracts.stablecoin, parseUnits('100000', 6)], chain: null, account: client.account! })
          : await client.writeContract({ address: contracts.tokenManager, abi: tokenManagerAbi, functionName: 'redeemWithAttestation', args: [quote, hexOf(body.signature), contracts.stablecoin, 0n], chain: null, account: client.account! });
      const receipt = await evm.reader.waitForTransactionReceipt({ hash, timeout: 30_000 });
      return receipt.status;
    } catch (error) {
      return `refused: ${error instanceof Error ? (error as { shortMessage?: string }).shortMessage ?? error.message : String(error)}`.slice(0, 120);
    }
  });
}

/** Completes a Solana attestation's transaction with the user's wallet and sends it; 'sent' or why not. */
async function executeOnSolana(context: Context, secretKey: string, body: AttestationBody): Promise<string> {
  const rpcUrl = context.parts.chains[SOLANA_CHAIN]?.rpcUrl;
  if (!rpcUrl) return 'no chain';
  try {
    const keyPair = await createKeyPairFromBytes(Uint8Array.from(getBase58Encoder().encode(secretKey)));
    const transaction = await partiallySignTransaction([keyPair], getTransactionDecoder().decode(Buffer.from(body.additionalData, 'base64')));
    await createSolanaRpc(rpcUrl).sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send();
    return 'sent';
  } catch (error) {
    return `refused: ${error instanceof Error ? error.message : String(error)}`.slice(0, 120);
  }
}

/**
 * A user: attestations on every chain under its write key, submitted (or not) with its wallets — its EVM wallet, when
 * one is registered to its account, and a Solana wallet; tokens held tracked per chain and symbol.
 */
function userActor(context: Context, user: { index: number; secret: string; evmWallet: boolean }): (operation: Operation, random: Random, actor: string) => Promise<void> {
  const { wallets, solanaWallets } = context.parts;
  const wallet = user.evmWallet ? wallets[user.index % Math.max(wallets.length, 1)] : undefined;
  const solanaWallet = solanaWallets[user.index % Math.max(solanaWallets.length, 1)];
  /** Tokens (1e18 units) the user's executed buys brought, by `chain:symbol`. */
  const held = new Map<string, bigint>();
  const approved = new Set<string>();
  return async (operation, random, actor) => {
    if (operation.kind === 'soft-quote') {
      await api(context, actor, random, 'POST', '/v1/attestations/soft', user.secret, { symbol: operation.symbol, side: operation.side, notionalValue: operation.notionalValue });
      return;
    }
    if (operation.kind === 'read-attestations') {
      await api(context, actor, random, 'GET', '/v1/attestations?limit=20', user.secret);
      return;
    }
    if (operation.kind !== 'attest') return;
    const solana = operation.chain === SOLANA_CHAIN;
    if (solana && !solanaWallet) return;
    // A sell of what the user holds, when it holds some on the chain (of the symbol drawn, else of one it holds, drawn
    // from this operation's own stream), at most all of it: sells need tokens. Otherwise the sell is only attested.
    let amount: { tokenAmount: string } | { notionalValue: string } = operation.amount;
    let symbol = operation.symbol;
    if (operation.side === 'sell') {
      const holdings = [...held].filter(([key, tokens]) => key.startsWith(`${operation.chain}:`) && tokens > 0n).map(([key]) => key.split(':')[1]!);
      if (!holdings.includes(symbol) && holdings.length > 0) symbol = random.pick(holdings);
      const part = ((held.get(`${operation.chain}:${symbol}`) ?? 0n) * BigInt(random.int(1, 4))) / 4n;
      if (part >= 10n ** 12n) amount = { tokenAmount: (Number(part / 10n ** 12n) / 1e6).toFixed(6) };
    }
    const heldKey = `${operation.chain}:${symbol}`;
    const answer = await api(context, actor, random, 'POST', '/v1/attestations', user.secret, {
      symbol,
      side: operation.side,
      ...amount,
      duration: operation.duration,
      chainId: operation.chain,
      ...(solana ? { userAddress: solanaWallet!.address } : {}),
    });
    if (answer.status !== 200 || operation.fate === 'never' || (!solana && !wallet)) return;
    const body = answer.body as AttestationBody;
    const quantity = BigInt(body.tokenAmount);
    if (operation.side === 'sell' && (held.get(heldKey) ?? 0n) < quantity) return; // nothing to sell: never submitted
    const submit = async (): Promise<string> => (solana ? executeOnSolana(context, solanaWallet!.secretKey, body) : executeOnEvm(context, operation.chain as EvmChain, wallet!, body, approved));
    const settle = (outcome: string): void => {
      count(context, `${operation.chain} ${operation.fate} ${outcome.startsWith('refused') ? 'refused' : outcome}`);
      if (outcome === 'success' || outcome === 'sent') held.set(heldKey, (held.get(heldKey) ?? 0n) + (operation.side === 'buy' ? quantity : -quantity));
    };
    if (operation.fate === 'late') {
      // After it expired (the contract and the program refuse it): in the background, so the user goes on meanwhile.
      const waitMs = Math.max(0, body.expiration * 1000 - Date.now()) + 2_000;
      const late = sleep(waitMs, context.parameters.signal).then(async () => {
        if (!context.parameters.signal.aborted) count(context, `${operation.chain} late ${(await submit()).startsWith('refused') ? 'refused' : 'accepted'}`);
      });
      context.background.add(late);
      void late.finally(() => context.background.delete(late));
      return;
    }
    settle(await submit());
    if (operation.fate === 'twice') settle(await submit());
  };
}

/** The partner: mints through the brokerage sandbox, reads its records back, burns tokens for redemption. */
function partnerActor(context: Context): (operation: Operation, random: Random, actor: string) => Promise<void> {
  const { broker, issuer, wallets, chains } = context.parts;
  const mints: string[] = [];
  return async (operation, random, actor) => {
    if (!broker || !issuer || wallets.length === 0) return;
    const participant = broker.accounts[0]!.accountId;
    const auth = { authorization: `Basic ${Buffer.from(`${broker.key}:${broker.secret}`).toString('base64')}` };
    if (operation.kind === 'partner-mint') {
      const wallet = wallets[operation.wallet % wallets.length]!;
      const answer = await journaledFetch(context.parameters.journal, {
        actor,
        api: broker.url,
        method: 'POST',
        path: `/v1/accounts/${participant}/tokenization/mint`,
        headers: { ...auth, 'Idempotency-Key': `campaign-${random.int(0, 2 ** 31)}-${random.int(0, 2 ** 31)}` },
        body: { underlying_symbol: operation.underlying, qty: operation.qty, issuer: issuer.id, network: operation.network, wallet_address: wallet.address },
      });
      const id = (answer.body as { tokenization_request_id?: string } | undefined)?.tokenization_request_id;
      if (answer.status >= 200 && answer.status < 300 && id) mints.push(id);
      return;
    }
    if (operation.kind === 'partner-read') {
      if (mints.length === 0) return;
      await journaledFetch(context.parameters.journal, { actor, api: broker.url, method: 'GET', path: `/v1/accounts/${participant}/tokenization/requests/${random.pick(mints)}`, headers: auth });
      return;
    }
    if (operation.kind !== 'partner-burn') return;
    // Burns part of what the wallet holds of a stock token the partner minted (the wallet is enabled for the flow).
    const wallet = wallets[operation.wallet % wallets.length]!;
    const contracts = chains[operation.chain]?.contracts;
    const evm = context.evm[operation.chain];
    if (!contracts || !evm) return;
    const symbol = `${random.pick(PARTNER_UNDERLYINGS)}on`;
    const token = contracts.tokens[symbol];
    if (!token) return;
    await context.locks.run(`${operation.chain}:${wallet.address}`, async () => {
      try {
        const balance = await evm.reader.readContract({ address: token, abi: stockTokenAbi, functionName: 'balanceOf', args: [wallet.address] });
        const amount = (balance * BigInt(Math.round(operation.fraction * 4))) / 4n;
        if (amount === 0n) return;
        const client = walletClient(context, operation.chain, wallet);
        await evm.reader.waitForTransactionReceipt({ hash: await client.writeContract({ address: token, abi: stockTokenAbi, functionName: 'approve', args: [contracts.issuer, amount], chain: null, account: client.account! }), timeout: 30_000 });
        const burn = await client.writeContract({ address: contracts.issuer, abi: issuerAbi, functionName: 'redeem', args: [token, amount], chain: null, account: client.account! });
        count(context, `${operation.chain} burn ${(await evm.reader.waitForTransactionReceipt({ hash: burn, timeout: 30_000 })).status}`);
      } catch {
        count(context, `${operation.chain} burn refused`);
      }
    });
  };
}

/** How long the operator keeps asking for a resume no API answers (the product down that long is a finding of its own). */
const LIFT_PATIENCE_MS = 180_000;

/**
 * A pause the operator made is always lifted: its resume is asked again, of any API, until one answers it (a 4xx
 * says there is nothing left to lift), as an operator would when the first answer was a dropped connection or a 503.
 */
async function lift(admin: (random: Random, actor: string, method: 'POST', path: string) => Promise<JournaledAnswer>, random: Random, actor: string, path: string): Promise<void> {
  const retries = random.fork(`lift ${path}`);
  const deadline = Date.now() + LIFT_PATIENCE_MS;
  for (let attempt = 0; ; attempt++) {
    const answer = await admin(retries, actor, 'POST', path);
    if ((answer.status >= 200 && answer.status < 500) || Date.now() > deadline) return;
    await sleep(Math.min(250 * 2 ** attempt, 5_000));
  }
}

/** The operator: pauses (then resumes, even once the run is over), corporate actions, reviews. */
function operatorActor(context: Context): (operation: Operation, random: Random, actor: string) => Promise<void> {
  const admin = (random: Random, actor: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => api(context, actor, random, method, path, context.parts.keys.admin, body);
  return async (operation, random, actor) => {
    switch (operation.kind) {
      case 'pause-market':
        await admin(random, actor, 'POST', '/v1/status/market/pause', { reason: 'campaign' });
        await sleep(operation.holdMs, context.parameters.signal);
        await lift(admin, random, actor, '/v1/status/market/resume');
        return;
      case 'pause-asset':
        await admin(random, actor, 'POST', `/v1/status/assets/${operation.symbol}/pause`, { reason: 'campaign' });
        await sleep(operation.holdMs, context.parameters.signal);
        await lift(admin, random, actor, `/v1/status/assets/${operation.symbol}/resume`);
        return;
      case 'pause-chain':
        await admin(random, actor, 'POST', `/v1/status/chains/${operation.chain}/pause`, { reason: 'campaign' });
        await sleep(operation.holdMs, context.parameters.signal);
        await lift(admin, random, actor, `/v1/status/chains/${operation.chain}/resume`);
        return;
      case 'corporate-action': {
        // A split a day ahead, for an hour: the operator's corporate action. The product stores its flag; nothing applies
        // it (shares_multiplier_changes is written by the seed only), and no route or ops command changes a multiplier.
        const start = Date.now() + 86_400_000;
        const reason = operation.ratio === '0.5' ? 'reverse_split' : 'stock_split';
        const answer = await admin(random, actor, 'POST', '/v1/status/assets/events', { symbol: operation.symbol, code: 'ASSET_PAUSED', reason, start, end: start + 3_600_000, updateSharesMultiplier: true });
        const eventId = (answer.body as { eventId?: string } | undefined)?.eventId;
        if (operation.deleteIt && eventId) await admin(random, actor, 'DELETE', `/v1/status/assets/events/${eventId}`);
        return;
      }
      case 'review': {
        const answer = await admin(random, actor, 'GET', '/v1/tokenization/requests?status=needs_review&limit=20');
        const waiting = ((answer.body as { requests?: { issuerRequestId: string; kind?: string; type?: string }[] } | undefined)?.requests ?? []).slice(0, 3);
        for (const request of waiting) {
          if (random.chance(0.7)) await admin(random, actor, 'POST', `/v1/tokenization/requests/${request.issuerRequestId}/resume`, {});
          else await admin(random, actor, 'POST', `/v1/tokenization/requests/${request.issuerRequestId}/reject`, { reason: 'campaign review' });
        }
        return;
      }
      default:
        return;
    }
  };
}

export interface WorkloadResult {
  operations: number;
  /** Operations by kind. */
  byKind: Record<string, number>;
  /** What the chain sends came to, by chain, fate and outcome. */
  chainOutcomes: Record<string, number>;
}

/** Write keys on new accounts of their own, made in the product's database as `npm run keys -- create --scope write` does. */
async function createWriteKeys(databaseUrl: string, count: number): Promise<string[]> {
  if (count === 0) return [];
  const db = createPool(databaseUrl, 1);
  try {
    const secrets: string[] = [];
    for (let index = 0; index < count; index++) secrets.push((await createApiKey(db, { name: `campaign user ${index}`, scope: 'write' })).secret);
    return secrets;
  } finally {
    await db.end();
  }
}

/** Runs the users, the partner and the operator until `signal` aborts; resolves once each has stopped. */
export async function runWorkload(parameters: WorkloadParameters): Promise<WorkloadResult> {
  const parts = stackParts(parameters.target);
  const evm: Context['evm'] = {};
  for (const chain of EVM_CHAINS) {
    const entry = parts.chains[chain];
    if (!entry?.contracts) continue;
    const network = evmNetwork(chain, entry.rpcUrl);
    evm[chain] = { network, reader: createPublicClient({ chain: viemChain(network), transport: http(entry.rpcUrl, { retryCount: 1, timeout: 15_000 }), pollingInterval: 250 }) };
  }
  const context: Context = { parameters, parts, locks: new WalletLocks(), evm, background: new Set(), chainOutcomes: {} };
  const users = parameters.users ?? Math.max(1, Math.min(parts.wallets.length, parts.solanaWallets.length) || 1);
  const ownKeys = await createWriteKeys(parameters.target.stack.database, parameters.ownAccounts ?? 2);
  const actors = [
    ...Array.from({ length: users }, (_, index) => ({ name: `user-${index}`, role: 'user' as const, act: userActor(context, { index, secret: parts.keys.write, evmWallet: true }) })),
    ...ownKeys.map((secret, offset) => ({ name: `user-${users + offset}`, role: 'user' as const, act: userActor(context, { index: users + offset, secret, evmWallet: false }) })),
    { name: 'partner', role: 'partner' as const, act: partnerActor(context) },
    { name: 'operator', role: 'operator' as const, act: operatorActor(context) },
  ];
  const meanGapMs = (actors.length * 1_000) / (parameters.operationsPerSecond ?? 2);
  const byKind: Record<string, number> = {};
  let operations = 0;
  await Promise.all(
    actors.map(async (actor) => {
      const random = parameters.random.fork(actor.name);
      for (let index = 0; !parameters.signal.aborted; index++) {
        const gapMs = drawGap(random, meanGapMs);
        const operation = drawOperation(random, actor.role, Math.max(parts.wallets.length, 1));
        await sleep(gapMs, parameters.signal);
        if (parameters.signal.aborted) break;
        parameters.record({ atMs: parameters.journal.now(), kind: 'operation', name: operation.kind, detail: { actor: actor.name, index, ...operation } });
        operations += 1;
        byKind[operation.kind] = (byKind[operation.kind] ?? 0) + 1;
        await actor.act(operation, random.fork(`operation-${index}`), actor.name);
      }
    }),
  );
  await Promise.all([...context.background]);
  return { operations, byKind, chainOutcomes: context.chainOutcomes };
}
