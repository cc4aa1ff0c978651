/**
 * The local Solana ledger (solana-ledger/) through its JSON-RPC only, with @solana/kit-built transactions and
 * @solana/web3.js reads: a token flow on the real SPL Token program, commitments moving as slots pass, duplicates
 * and expired blockhashes refused, durable nonces, signature paging, and a restart (clean or killed) keeping the state.
 * Slots are advanced by hand (`ledger.advanceSlot()`, the slot timer set to an hour) so no assertion depends on time,
 * except the one test that watches the timer move the slot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSolanaRpc, generateKeyPairSigner, getBase58Decoder, type Address, type Base64EncodedWireTransaction, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getNonceSize, getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintSize,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { Connection, PublicKey } from '@solana/web3.js';
import { Ledger, startSolanaLedger, type SolanaLedger, type SolanaLedgerOptions } from '../../../solana-ledger';
import { eventually } from '../../support/eventually';
import { rpcCall, rpcResult, send, signedTransaction } from '../../support/solana';

const HOUR_MS = 3_600_000;
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address;
const SOL = 1_000_000_000;
const running: SolanaLedger[] = [];
const directories: string[] = [];

async function ledger(options: SolanaLedgerOptions = {}): Promise<SolanaLedger> {
  const started = await startSolanaLedger({ slotMs: HOUR_MS, confirmedLag: 1, finalizedLag: 3, ...options });
  running.push(started);
  return started;
}

function stateDirectory(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'solana-ledger-'));
  directories.push(directory);
  return directory;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((started) => started.stop()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

async function funded(url: string, lamports = 10 * SOL): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  await rpcResult(url, 'requestAirdrop', [signer.address, lamports]);
  return signer;
}

/** A 6-decimal mint with `authority`, and an associated token account of `holder` holding `amount`. */
async function mintWithHolder(url: string, authority: KeyPairSigner, holder: Address, amount: bigint) {
  const mint = await generateKeyPairSigner();
  const rent = await rpcResult<number>(url, 'getMinimumBalanceForRentExemption', [getMintSize()]);
  const [holderAccount] = await findAssociatedTokenPda({ owner: holder, mint: mint.address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  await send(
    url,
    await signedTransaction(url, authority, [
      getCreateAccountInstruction({ payer: authority, newAccount: mint, lamports: BigInt(rent), space: getMintSize(), programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: authority.address }),
      getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata: holderAccount, owner: holder, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: holderAccount, mintAuthority: authority, amount }),
    ]),
  );
  return { mint: mint.address, holderAccount };
}

/** A durable nonce account with `authority` as its nonce authority. */
async function createNonceAccount(url: string, authority: KeyPairSigner): Promise<Address> {
  const nonceAccount = await generateKeyPairSigner();
  const rent = await rpcResult<number>(url, 'getMinimumBalanceForRentExemption', [getNonceSize()]);
  await send(
    url,
    await signedTransaction(url, authority, [
      getCreateAccountInstruction({ payer: authority, newAccount: nonceAccount, lamports: BigInt(rent), space: getNonceSize(), programAddress: '11111111111111111111111111111111' as Address }),
      getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: authority.address }),
    ]),
  );
  return nonceAccount.address;
}

/** The nonce a nonce account holds now (what a transaction using it carries as its blockhash). */
async function nonceOf(url: string, nonceAccount: Address): Promise<string> {
  const { value } = await rpcResult<{ value: { data: [string, string] } }>(url, 'getAccountInfo', [nonceAccount, { commitment: 'processed', encoding: 'base64' }]);
  return getBase58Decoder().decode(Buffer.from(value.data[0], 'base64').subarray(40, 72));
}

async function tokenAmount(url: string, account: Address, commitment: string): Promise<string> {
  return (await rpcResult<{ value: { amount: string } }>(url, 'getTokenAccountBalance', [account, { commitment }])).value.amount;
}

async function statusOf(url: string, signature: string) {
  const { value } = await rpcResult<{ value: ({ confirmationStatus: string; err: unknown } | null)[] }>(url, 'getSignatureStatuses', [[signature], { searchTransactionHistory: true }]);
  return value[0];
}

describe('the local Solana ledger', () => {
  test('a token flow: airdrop, a mint, token accounts, a transfer with a memo — read back with @solana/web3.js', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger();
    const issuer = await funded(url);
    const user = await generateKeyPairSigner();
    expect((await rpcResult<{ value: number }>(url, 'getBalance', [issuer.address, { commitment: 'processed' }])).value).toBe(10 * SOL);

    const { mint, holderAccount } = await mintWithHolder(url, issuer, issuer.address, 5_000_000n);
    const [userAccount] = await findAssociatedTokenPda({ owner: user.address, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    const transfer = await send(
      url,
      await signedTransaction(url, issuer, [
        getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: userAccount, owner: user.address, mint }),
        getTransferCheckedInstruction({ source: holderAccount, mint, destination: userAccount, authority: issuer, amount: 1_250_000n, decimals: 6 }),
        { programAddress: MEMO_PROGRAM, data: new TextEncoder().encode('attestation 42') },
      ]),
    );
    expect(await tokenAmount(url, userAccount, 'processed')).toBe('1250000');
    expect(await tokenAmount(url, holderAccount, 'processed')).toBe('3750000');
    for (let slot = 0; slot < 3; slot += 1) bank.advanceSlot();

    const connection = new Connection(url, 'finalized');
    expect((await connection.getTokenSupply(new PublicKey(mint))).value).toMatchObject({ amount: '5000000', decimals: 6, uiAmountString: '5' });
    const owned = await connection.getParsedTokenAccountsByOwner(new PublicKey(user.address), { mint: new PublicKey(mint) });
    expect(owned.value.map((entry) => [entry.pubkey.toBase58(), entry.account.data.parsed.info.tokenAmount.amount])).toEqual([[userAccount, '1250000']]);
    const transaction = await connection.getTransaction(transfer, { maxSupportedTransactionVersion: 0 });
    expect(transaction?.meta?.err).toBeNull();
    expect(transaction?.meta?.fee).toBe(5000);
    expect(transaction?.meta?.postTokenBalances?.map((balance) => [balance.owner, balance.uiTokenAmount.amount]).sort()).toEqual(
      [
        [issuer.address, '3750000'],
        [user.address, '1250000'],
      ].sort(),
    );
    expect(transaction?.meta?.preTokenBalances?.map((balance) => [balance.owner, balance.uiTokenAmount.amount])).toEqual([[issuer.address, '5000000']]);
    expect(transaction?.meta?.logMessages).toContain(`Program ${TOKEN_PROGRAM_ADDRESS} success`);
    expect(transaction?.transaction.message.staticAccountKeys.map((key) => key.toBase58())).toContain(userAccount);
    expect(transaction?.meta?.logMessages?.slice(-4)).toEqual(['Program log: Memo (len 14)', 'Program log: attestation 42', expect.stringContaining('consumed'), `Program ${MEMO_PROGRAM} success`]);
    const [listed] = await connection.getSignaturesForAddress(new PublicKey(userAccount));
    expect(listed).toMatchObject({ signature: transfer, memo: '[14] attestation 42', err: null, confirmationStatus: 'finalized' });
  });

  test('a transaction is processed, then confirmed, then finalized as slots pass; reads at each commitment see the state as of it', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger({ confirmedLag: 1, finalizedLag: 3 });
    const issuer = await funded(url);
    for (let slot = 0; slot < 3; slot += 1) bank.advanceSlot();
    const { mint, holderAccount } = await mintWithHolder(url, issuer, issuer.address, 1_000_000n);
    for (let slot = 0; slot < 3; slot += 1) bank.advanceSlot();
    const minted = await send(url, await signedTransaction(url, issuer, [getMintToInstruction({ mint, token: holderAccount, mintAuthority: issuer, amount: 500_000n })]));
    const supply = async (commitment: string) => (await rpcResult<{ value: { amount: string } }>(url, 'getTokenSupply', [mint, { commitment }])).value.amount;
    const signatures = async (commitment: string) =>
      (await rpcResult<{ signature: string }[]>(url, 'getSignaturesForAddress', [mint, { commitment }])).map((entry) => entry.signature);

    expect((await statusOf(url, minted))?.confirmationStatus).toBe('processed');
    expect([await supply('processed'), await supply('confirmed'), await supply('finalized')]).toEqual(['1500000', '1000000', '1000000']);
    expect(await signatures('confirmed')).not.toContain(minted);
    expect((await rpcResult(url, 'getTransaction', [minted, { commitment: 'confirmed' }])) as unknown).toBeNull();

    bank.advanceSlot();
    expect((await statusOf(url, minted))?.confirmationStatus).toBe('confirmed');
    expect([await supply('confirmed'), await supply('finalized')]).toEqual(['1500000', '1000000']);
    expect(await signatures('confirmed')).toContain(minted);
    expect(await signatures('finalized')).not.toContain(minted);
    expect(await tokenAmount(url, holderAccount, 'finalized')).toBe('1000000');

    bank.advanceSlot();
    bank.advanceSlot();
    expect(await statusOf(url, minted)).toMatchObject({ confirmationStatus: 'finalized', err: null });
    expect(await supply('finalized')).toBe('1500000');
    expect(await tokenAmount(url, holderAccount, 'finalized')).toBe('1500000');
    expect((await signatures('finalized'))[0]).toBe(minted);
    expect(await rpcResult(url, 'getTransaction', [minted, { commitment: 'finalized', encoding: 'json', maxSupportedTransactionVersion: 0 }])).toMatchObject({ meta: { err: null } });
  });

  test('the RPC client of @solana/kit sends and reads through it', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger();
    const rpc = createSolanaRpc(url);
    const payer = await funded(url);
    const recipient = await generateKeyPairSigner();
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'processed' }).send();
    const wire = await signedTransaction(url, payer, [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 4_000_000n })], { blockhash: latest.blockhash });
    const signature = await rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64' }).send();
    bank.advanceSlot();
    const { value: statuses } = await rpc.getSignatureStatuses([signature]).send();
    expect(statuses[0]).toMatchObject({ confirmationStatus: 'confirmed', err: null });
    expect((await rpc.getBalance(recipient.address, { commitment: 'confirmed' }).send()).value).toBe(4_000_000n);
    expect((await rpc.getAccountInfo(recipient.address, { commitment: 'confirmed', encoding: 'base64' }).send()).value?.lamports).toBe(4_000_000n);
    expect(await rpc.getSlot({ commitment: 'processed' }).send()).toBe(BigInt(bank.slot));
  });

  test('the slot timer moves the slot on by itself', async () => {
    const { rpcUrl: url } = await ledger({ slotMs: 20 });
    const first = await rpcResult<number>(url, 'getSlot', [{ commitment: 'processed' }]);
    await eventually(async () => expect(await rpcResult<number>(url, 'getSlot', [{ commitment: 'processed' }])).toBeGreaterThan(first + 2));
  });

  test('the same transaction sent twice lands once: refused AlreadyProcessed at preflight, dropped without it', async () => {
    const { rpcUrl: url } = await ledger();
    const payer = await funded(url);
    const recipient = await generateKeyPairSigner();
    const wire = await signedTransaction(url, payer, [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1_000_000n })]);
    const signature = await send(url, wire);
    const again = await rpcCall(url, 'sendTransaction', [wire, { encoding: 'base64' }]);
    expect(again.error).toMatchObject({ code: -32002, data: { err: 'AlreadyProcessed' } });
    expect(await send(url, wire, { skipPreflight: true })).toBe(signature);
    expect((await rpcResult<{ value: number }>(url, 'getBalance', [recipient.address, { commitment: 'processed' }])).value).toBe(1_000_000);
    expect(await rpcResult<unknown[]>(url, 'getSignaturesForAddress', [recipient.address, { commitment: 'confirmed' }])).toHaveLength(0);
  });

  test('a transaction whose blockhash expired is refused BlockhashNotFound', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger({ blockhashValiditySlots: 3 });
    const payer = await funded(url);
    const { value } = await rpcResult<{ value: { blockhash: string; lastValidBlockHeight: number } }>(url, 'getLatestBlockhash', [{ commitment: 'processed' }]);
    const wire = await signedTransaction(url, payer, [getTransferSolInstruction({ source: payer, destination: payer.address, amount: 1n })], { blockhash: value.blockhash });
    for (let slot = 0; slot < 4; slot += 1) bank.advanceSlot();
    expect(await rpcResult<number>(url, 'getBlockHeight', [{ commitment: 'processed' }])).toBeGreaterThan(value.lastValidBlockHeight);
    expect((await rpcResult<{ value: boolean }>(url, 'isBlockhashValid', [value.blockhash])).value).toBe(false);
    expect((await rpcCall(url, 'sendTransaction', [wire, { encoding: 'base64' }])).error).toMatchObject({ code: -32002, data: { err: 'BlockhashNotFound' } });
    expect((await rpcCall(url, 'sendTransaction', [wire, { encoding: 'base64', skipPreflight: true }])).error).toMatchObject({ data: { err: 'BlockhashNotFound' } });
  });

  test('a durable-nonce transaction lands long after blockhashes expired, once; the nonce it used is spent', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger({ blockhashValiditySlots: 3 });
    const authority = await funded(url);
    const nonceAccount = await createNonceAccount(url, authority);
    bank.advanceSlot();
    const recipient = await generateKeyPairSigner();
    const lifetime = { nonce: await nonceOf(url, nonceAccount), nonceAccount, nonceAuthority: authority };
    const first = await signedTransaction(url, authority, [getTransferSolInstruction({ source: authority, destination: recipient.address, amount: 2_000_000n })], lifetime);
    const second = await signedTransaction(url, authority, [getTransferSolInstruction({ source: authority, destination: recipient.address, amount: 3_000_000n })], lifetime);
    for (let slot = 0; slot < 10; slot += 1) bank.advanceSlot();

    const signature = await send(url, first);
    expect((await statusOf(url, signature))?.err).toBeNull();
    expect((await rpcCall(url, 'sendTransaction', [second, { encoding: 'base64' }])).error).toMatchObject({ data: { err: 'BlockhashNotFound' } });
    expect((await rpcResult<{ value: number }>(url, 'getBalance', [recipient.address, { commitment: 'processed' }])).value).toBe(2_000_000);
  });

  test('a durable-nonce transaction that fails in an instruction lands failed, as on a cluster: its fee is paid and its nonce spent', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger({ blockhashValiditySlots: 3 });
    const authority = await funded(url, SOL);
    const nonceAccount = await createNonceAccount(url, authority);
    bank.advanceSlot();
    const recipient = await generateKeyPairSigner();
    const lifetime = { nonce: await nonceOf(url, nonceAccount), nonceAccount, nonceAuthority: authority };
    const failing = await signedTransaction(url, authority, [getTransferSolInstruction({ source: authority, destination: recipient.address, amount: 5n * BigInt(SOL) })], lifetime);
    const fitting = await signedTransaction(url, authority, [getTransferSolInstruction({ source: authority, destination: recipient.address, amount: 1_000_000n })], lifetime);
    const balance = async () => (await rpcResult<{ value: number }>(url, 'getBalance', [authority.address, { commitment: 'processed' }])).value;
    const before = await balance();

    const signature = await send(url, failing, { skipPreflight: true });
    expect((await statusOf(url, signature))?.err).toEqual({ InstructionError: [1, { Custom: 1 }] });
    expect(await balance()).toBe(before - 5000);
    expect(await nonceOf(url, nonceAccount)).not.toBe(lifetime.nonce);
    expect((await rpcCall(url, 'sendTransaction', [fitting, { encoding: 'base64' }])).error).toMatchObject({ data: { err: 'BlockhashNotFound' } });
  });

  test('a tampered transaction (another amount, signed for the first) is refused, with or without preflight; one failing in an instruction is refused at preflight and kept, failed, without it', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger();
    const payer = await funded(url, SOL);
    const recipient = await generateKeyPairSigner();
    const wire = Buffer.from(await signedTransaction(url, payer, [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1_000n })]), 'base64');
    const amountAt = wire.indexOf(Buffer.from(new BigUint64Array([1_000n]).buffer));
    const tampered = Buffer.from(wire);
    tampered.writeBigUInt64LE(900_000n, amountAt);
    expect((await rpcCall(url, 'sendTransaction', [tampered.toString('base64'), { encoding: 'base64' }])).error).toMatchObject({ code: -32002, data: { err: 'SignatureFailure' } });
    expect((await rpcCall(url, 'sendTransaction', [tampered.toString('base64'), { encoding: 'base64', skipPreflight: true }])).error).toMatchObject({ data: { err: 'SignatureFailure' } });
    expect((await rpcResult<{ value: number }>(url, 'getBalance', [recipient.address, { commitment: 'processed' }])).value).toBe(0);

    const tooMuch = await signedTransaction(url, payer, [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 2n * BigInt(SOL) })]);
    const refused = await rpcCall(url, 'sendTransaction', [tooMuch, { encoding: 'base64' }]);
    expect(refused.error).toMatchObject({ code: -32002, data: { err: { InstructionError: [0, { Custom: 1 }] } } });
    const failed = await send(url, tooMuch, { skipPreflight: true });
    bank.advanceSlot();
    expect(await statusOf(url, failed)).toMatchObject({ err: { InstructionError: [0, { Custom: 1 }] } });
    expect(await rpcResult(url, 'getTransaction', [failed, { commitment: 'confirmed' }])).toMatchObject({ meta: { err: { InstructionError: [0, { Custom: 1 }] } } });
    expect((await rpcResult<{ value: number }>(url, 'getBalance', [recipient.address, { commitment: 'processed' }])).value).toBe(0);
  });

  test('getSignaturesForAddress pages newest first with limit, before and until', async () => {
    const { rpcUrl: url, ledger: bank } = await ledger();
    const payer = await funded(url);
    const recipient = await generateKeyPairSigner();
    const sent: string[] = [];
    for (let index = 1; index <= 5; index += 1) {
      sent.push(await send(url, await signedTransaction(url, payer, [getTransferSolInstruction({ source: payer, destination: recipient.address, amount: BigInt(index * 1_000_000) })])));
      bank.advanceSlot();
    }
    const newestFirst = [...sent].reverse();
    const page = async (options: Record<string, unknown>) =>
      (await rpcResult<{ signature: string }[]>(url, 'getSignaturesForAddress', [recipient.address, { commitment: 'confirmed', ...options }])).map((entry) => entry.signature);
    expect(await page({})).toEqual(newestFirst);
    expect(await page({ limit: 2 })).toEqual(newestFirst.slice(0, 2));
    expect(await page({ limit: 2, before: newestFirst[1] })).toEqual(newestFirst.slice(2, 4));
    expect(await page({ until: newestFirst[3] })).toEqual(newestFirst.slice(0, 3));
    expect(await page({ before: newestFirst[0], until: newestFirst[3] })).toEqual(newestFirst.slice(1, 3));
    expect((await rpcCall(url, 'getSignaturesForAddress', [recipient.address, { limit: 1001 }])).error?.code).toBe(-32602);
  });

  test("getBlock answers a slot's blockhash (the transactions' recent blockhash of that slot) from confirmed on, and keeps it across a restart", async () => {
    const directory = stateDirectory();
    const first = await ledger({ stateDirectory: directory, confirmedLag: 1, finalizedLag: 3 });
    const payer = await funded(first.rpcUrl);
    first.ledger.advanceSlot();
    const { blockhash: latest } = (await rpcResult<{ value: { blockhash: string } }>(first.rpcUrl, 'getLatestBlockhash', [{ commitment: 'processed' }])).value;
    await send(first.rpcUrl, await signedTransaction(first.rpcUrl, payer, [{ programAddress: MEMO_PROGRAM, data: new TextEncoder().encode('block') }]));
    const slot = first.ledger.slot;
    const block = (commitment: string) => rpcCall<{ blockhash: string; previousBlockhash: string; parentSlot: number; blockHeight: number }>(first.rpcUrl, 'getBlock', [slot, { commitment, transactionDetails: 'none', rewards: false }]);

    expect((await block('confirmed')).error).toMatchObject({ code: -32004 });
    first.ledger.advanceSlot();
    const confirmed = (await block('confirmed')).result!;
    expect(confirmed).toMatchObject({ blockhash: latest, parentSlot: slot - 1, blockHeight: slot });
    expect(confirmed.previousBlockhash).not.toBe(latest);
    expect((await rpcCall(first.rpcUrl, 'getBlock', [slot, { commitment: 'confirmed' }])).error).toMatchObject({ code: -32602 });
    await first.stop();

    // Long after its blockhash stopped being valid, and after a restart: the block of a slot holding a transaction is kept.
    const second = await ledger({ stateDirectory: directory, confirmedLag: 1, finalizedLag: 3, blockhashValiditySlots: 2 });
    for (let index = 0; index < 10; index += 1) second.ledger.advanceSlot();
    expect(await rpcResult(second.rpcUrl, 'getBlock', [slot, { commitment: 'finalized', transactionDetails: 'none', rewards: false }])).toEqual({ ...confirmed, blockTime: expect.any(Number) });
  });

  test('a method it does not serve is a JSON-RPC error naming the ones it does', async () => {
    const { rpcUrl: url } = await ledger();
    const answer = await rpcCall(url, 'getBlocks', [1]);
    expect(answer.error?.code).toBe(-32601);
    expect(answer.error?.message).toContain('getSignaturesForAddress');
    expect(await rpcResult(url, 'getHealth')).toBe('ok');
  });

  test('a restart keeps the state: accounts, transactions, statuses, signatures, the genesis hash and the slot', async () => {
    const directory = stateDirectory();
    const first = await ledger({ stateDirectory: directory });
    const issuer = await funded(first.rpcUrl);
    const { mint, holderAccount } = await mintWithHolder(first.rpcUrl, issuer, issuer.address, 7_000_000n);
    for (let slot = 0; slot < 4; slot += 1) first.ledger.advanceSlot();
    const signatures = await rpcResult<{ signature: string }[]>(first.rpcUrl, 'getSignaturesForAddress', [mint]);
    const genesis = await rpcResult<string>(first.rpcUrl, 'getGenesisHash');
    const slot = first.ledger.slot;
    await first.stop();

    const second = await ledger({ stateDirectory: directory });
    expect(second.ledger.slot).toBe(slot);
    expect(await rpcResult<string>(second.rpcUrl, 'getGenesisHash')).toBe(genesis);
    expect(await tokenAmount(second.rpcUrl, holderAccount, 'finalized')).toBe('7000000');
    expect(await rpcResult(second.rpcUrl, 'getSignaturesForAddress', [mint])).toEqual(signatures);
    expect((await statusOf(second.rpcUrl, signatures[0]!.signature))?.confirmationStatus).toBe('finalized');
    // and it goes on: the issuer's key still mints
    await send(second.rpcUrl, await signedTransaction(second.rpcUrl, issuer, [getMintToInstruction({ mint, token: holderAccount, mintAuthority: issuer, amount: 1n })]));
    expect(await tokenAmount(second.rpcUrl, holderAccount, 'processed')).toBe('7000001');
  });

  test('a ledger killed before its snapshot loses nothing it answered: the journal is executed again at start', async () => {
    const directory = stateDirectory();
    const killed = new Ledger({ stateDirectory: directory, finalizedLag: 3 });
    const user = await generateKeyPairSigner();
    killed.airdrop(user.address, 5n * BigInt(SOL));
    // Never stopped (no snapshot written): as if the process had been killed.
    const restarted = await ledger({ stateDirectory: directory });
    expect((await rpcResult<{ value: number }>(restarted.rpcUrl, 'getBalance', [user.address, { commitment: 'processed' }])).value).toBe(5 * SOL);
    expect(await rpcResult<unknown[]>(restarted.rpcUrl, 'getSignaturesForAddress', [user.address, { commitment: 'confirmed' }])).toHaveLength(0);
    for (let slot = 0; slot < 3; slot += 1) restarted.ledger.advanceSlot();
    expect(await rpcResult<unknown[]>(restarted.rpcUrl, 'getSignaturesForAddress', [user.address])).toHaveLength(1);
  });
});
