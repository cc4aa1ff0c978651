/**
 * The campaign checker on stored histories (invariants 2, 3, 7 from the database, 1 from the reserves computation):
 * a consistent history passes; each history broken on purpose, as a bug would leave it, is reported naming the
 * records that break it.
 */
import { checkInvariants, lateSolanaExecutions, formatViolation, type Violation } from '../../campaign/invariants';
import { insertReserveSnapshots, type ReserveAsset } from '../../db/queries/reserves';
import { cloneTemplateDatabase, type TestDb } from '../support/database';
import { insertAttestation, insertConsistentHistory, insertExecution, insertObligation, insertTokenTransfer, resetHistory, T0, tx, USER } from './history';

const CAPS = { offhoursGlobalExposure: '1000000', offhoursAssetExposure: '250000' };

let database: TestDb;

beforeAll(async () => {
  database = await cloneTemplateDatabase();
});

afterAll(async () => {
  await database?.drop();
});

beforeEach(async () => {
  await resetHistory(database.db);
  await insertConsistentHistory(database.db);
});

const check = (): Promise<Violation[]> => checkInvariants(database.db, { caps: CAPS });

/** The violations as `[invariant] rule` with the records named, for matching. */
const brief = (violations: Violation[]) => violations.map(({ invariant, rule, records }) => ({ invariant, rule, records }));

test('a consistent history has no violation', async () => {
  expect(await check()).toEqual([]);
});

describe('2 exactly once', () => {
  test('a final execution with no hedge obligation is named', async () => {
    await database.db.query(`DELETE FROM hedge_obligations WHERE tx_hash = $1`, [tx(2)]);
    expect(brief(await check())).toEqual([
      {
        invariant: '2 exactly once',
        rule: 'a final execution owes no hedge obligation',
        records: { chain: 'ethereum-1', txHash: tx(2), logIndex: '0', attestationId: '2', quantity: '2000000000000000000' },
      },
    ]);
  });

  test('two obligations for one execution (a second log of the same attestation) are named', async () => {
    await insertObligation(database.db, { attestationId: 1, txHash: tx(1), logIndex: 5 });
    const violations = await check();
    expect(violations.map((v) => v.rule)).toEqual(['a hedge obligation has no final execution', 'an attestation owes more than one hedge obligation']);
    expect(violations[0]!.records).toMatchObject({ txHash: tx(1), logIndex: '5', attestationId: '1' });
    expect(violations[1]!.records).toEqual({ attestationId: '1', obligations: '2', executions: `ethereum-1:${tx(1)}:0 ethereum-1:${tx(1)}:5`, shares: '4' });
  });

  test('an attestation executed by two final transactions is named, with both', async () => {
    await insertExecution(database.db, { attestationId: 1, txHash: tx(11), executedAt: T0 + 31_000 });
    await insertObligation(database.db, { attestationId: 1, txHash: tx(11) });
    await insertTokenTransfer(database.db, { txHash: tx(11) });
    const rules = (await check()).map((v) => [v.rule, v.records.attestationId, v.records.txHash ?? v.records.txHashes ?? v.records.executions]);
    expect(rules).toEqual([
      ['an attestation owes more than one hedge obligation', '1', `ethereum-1:${tx(1)}:0 ethereum-1:${tx(11)}:0`],
      ['an attestation has more than one final execution', '1', `ethereum-1:${tx(1)}:0 ethereum-1:${tx(11)}:0`],
      ['a final execution whose attestation is not executed by it', '1', tx(11)],
    ]);
  });

  test('an attestation recorded executed whose execution never became final is named', async () => {
    await database.db.query(`UPDATE trade_executions SET status = 'orphaned' WHERE tx_hash = $1`, [tx(1)]);
    await database.db.query(`UPDATE token_transfers SET status = 'orphaned' WHERE tx_hash = $1`, [tx(1)]);
    expect(brief(await check()).map((v) => [v.rule, v.records.attestationId, v.records.txHash])).toEqual([
      ['a hedge obligation has no final execution', '1', tx(1)],
      ['an executed attestation has no final execution of its transaction', '1', tx(1)],
    ]);
  });

  test("shares delivered for a burn that left the chain are named", async () => {
    await database.db.query(
      `INSERT INTO redemptions (redemption_id, chain, tx_hash, log_index, block_number, block_time, wallet, user_id, token, symbol, amount, usd_notional, state)
       VALUES ('red-1', 'ethereum-1', $1, 0, 12, $2, $3, 'u', $3, 'AAPLon', 1000, 100, 'cancelled')`,
      [tx(21), T0, `0x${'b2'.repeat(20)}`],
    );
    await database.db.query(
      `INSERT INTO partner_requests (issuer_request_id, kind, state, chain, underlying_symbol, token_symbol, wallet, redemption_id)
       VALUES ('req-1', 'redeem', 'completed', 'ethereum-1', 'AAPL', 'AAPLon', $1, 'red-1')`,
      [`0x${'b2'.repeat(20)}`],
    );
    expect(brief(await check())).toEqual([
      {
        invariant: '2 exactly once',
        rule: 'shares delivered for a burn that is not final',
        records: { issuerRequestId: 'req-1', state: 'completed', redemptionId: 'red-1', chain: 'ethereum-1', txHash: tx(21), redemptionState: 'cancelled', amount: '1000' },
      },
    ]);
  });

  test("a partner mint's retried attempt is one key; two of its attempts succeeding are named", async () => {
    const insert = (attempt: number, state: string) =>
      database.db.query(
        `INSERT INTO chain_transactions (key, chain, sender, nonce, tx_hash, raw, state) VALUES ($1, 'ethereum-1', '0xissuer', $2, $3, '0x', $4)`,
        [`partner-mint-req-2:processMint:${attempt}`, attempt, tx(30 + attempt), state],
      );
    await insert(1, 'reverted');
    await insert(2, 'confirmed');
    expect(await check()).toEqual([]);
    await insert(3, 'confirmed');
    expect(brief(await check())).toEqual([
      {
        invariant: '2 exactly once',
        rule: 'two issuer transactions succeeded for one key',
        records: { key: 'partner-mint-req-2:processMint', chain: 'ethereum-1', transactions: '2', txHashes: `${tx(32)} ${tx(33)}` },
      },
    ]);
  });
});

describe('3 nothing on chain that was not issued', () => {
  test('an execution of an attestation the API never created is named', async () => {
    await insertExecution(database.db, { attestationId: 99, txHash: tx(9), executedAt: T0, status: 'seen' });
    expect(brief(await check())).toEqual([
      {
        invariant: '3 nothing not issued',
        rule: 'an execution of an attestation the API never created',
        records: { chain: 'ethereum-1', txHash: tx(9), logIndex: '0', attestationId: '99', status: 'seen' },
      },
    ]);
  });

  test('an execution that landed after its expiry is named with both times', async () => {
    await insertAttestation(database.db, { id: 4, createdAt: T0, expiresAt: T0 + 60_000, state: 'executing' });
    await insertExecution(database.db, { attestationId: 4, txHash: tx(4), executedAt: T0 + 60_001, status: 'seen' });
    expect(brief(await check())).toEqual([
      {
        invariant: '3 nothing not issued',
        rule: 'an execution landed after its attestation expired',
        records: { chain: 'ethereum-1', txHash: tx(4), attestationId: '4', executedAt: '2026-09-21T14:14:20.001Z', expiresAt: '2026-09-21T14:14:20.000Z' },
      },
    ]);
    expect(await lateSolanaExecutions(database.db)).toEqual({ count: 0, latestByMs: 0 });
  });

  test('on Solana, where nothing on chain reads a quote time, one that landed after its expiry (before the nonce advance) is counted for the report, not named', async () => {
    for (const [id, lateMs] of [[7, 1_500], [8, 3_000]] as const) {
      await insertAttestation(database.db, { id, chain: 'solana-900', createdAt: T0, expiresAt: T0 + 60_000, state: 'executing' });
      await insertExecution(database.db, { attestationId: id, txHash: tx(id), chain: 'solana-900', executedAt: T0 + 60_000 + lateMs, status: 'seen' });
    }
    expect(brief(await check())).toEqual([]);
    expect(await lateSolanaExecutions(database.db)).toEqual({ count: 2, latestByMs: 3_000 });
  });

  test('an execution on another chain or side than attested is named', async () => {
    await insertAttestation(database.db, { id: 5, state: 'executing' });
    await insertExecution(database.db, { attestationId: 5, txHash: tx(5), side: 'sell', executedAt: T0 + 6_000, status: 'seen' });
    expect(brief(await check()).map((v) => [v.rule, v.records.attestationId, v.records.side, v.records.attestedSide])).toEqual([
      ['an execution differs from its attestation (chain or side)', '5', 'sell', 'buy'],
    ]);
  });

  test('a stock token minted outside any execution or partner mint is named; the partner mint with its request is not', async () => {
    await insertTokenTransfer(database.db, { txHash: tx(40) });
    await database.db.query(
      `INSERT INTO partner_requests (issuer_request_id, kind, state, chain, underlying_symbol, token_symbol, wallet, tokenization_request_id, tx_hash)
       VALUES ('req-3', 'mint', 'minted', 'ethereum-1', 'AAPL', 'AAPLon', $1, 'tok-3', $2)`,
      [`0x${'b2'.repeat(20)}`, tx(40)],
    );
    expect(await check()).toEqual([]);
    await insertTokenTransfer(database.db, { txHash: tx(41), amount: '7' });
    expect(brief(await check())).toEqual([
      {
        invariant: '3 nothing not issued',
        rule: 'a stock token minted by neither an execution nor a partner mint',
        records: { chain: 'ethereum-1', txHash: tx(41), logIndex: '1', symbol: 'AAPLon', recipient: `0x${'b2'.repeat(20)}`, amount: '7' },
      },
    ]);
  });
});

describe('7 the stablecoin adds up (database)', () => {
  test('an execution that settled another quantity than attested is named with both', async () => {
    await database.db.query(`UPDATE trade_executions SET quantity = quantity + 1 WHERE tx_hash = $1`, [tx(2)]);
    expect(brief(await check())).toEqual([
      {
        invariant: '7 stablecoin',
        rule: 'an execution settled another price or quantity than attested',
        records: {
          chain: 'ethereum-1',
          txHash: tx(2),
          attestationId: '2',
          price: '100000000000000000000',
          attestedPrice: '100000000000000000000',
          quantity: '2000000000000000001',
          attestedQuantity: '2000000000000000000',
        },
      },
    ]);
  });
});

test('on Solana an execution moves the attested quantity in the 9 decimals of its mint, rounded as its transaction rounds: a buy down, a sell up', async () => {
  // 0.1234567891 tokens attested: a buy mints 0.123456789, a sell burns 0.12345679.
  const attested = '0.1234567891';
  for (const [id, side] of [[60, 'buy'], [61, 'sell'], [62, 'buy']] as const) {
    await insertAttestation(database.db, { id, chain: 'solana-900', side, tokens: attested, state: 'executing', txHash: tx(id) });
    await insertExecution(database.db, { attestationId: id, txHash: tx(id), chain: 'solana-900', side, executedAt: T0 + id * 1_000, status: 'seen' });
  }
  const setQuantity = (id: number, quantity: string) => database.db.query(`UPDATE trade_executions SET quantity = $2 WHERE tx_hash = $1`, [tx(id), quantity]);
  await setQuantity(60, '123456789000000000');
  await setQuantity(61, '123456790000000000');
  // The third moved the quantity at 18 decimals, which no Solana transaction of the issuer does.
  await setQuantity(62, '123456789100000000');
  const stablecoin = brief(await check()).filter((violation) => violation.invariant === '7 stablecoin');
  expect(stablecoin).toEqual([
    {
      invariant: '7 stablecoin',
      rule: 'an execution settled another price or quantity than attested',
      records: expect.objectContaining({ chain: 'solana-900', attestationId: '62', quantity: '123456789100000000', attestedQuantity: '123456789000000000' }),
    },
  ]);
});

describe('1 backing (the last reserves computation)', () => {
  const asset = (overrides: Partial<ReserveAsset>): ReserveAsset => ({
    underlying: 'AAPL',
    symbol: 'AAPLon',
    sharesMultiplier: '1',
    tokens: { total: '10', byChain: { 'ethereum-1': '10' }, blocks: { 'ethereum-1': 12 } },
    sharesRequired: '10',
    sharesHeld: '10',
    inFlight: { hedges: '0', redemptions: '0', partnerMints: '0' },
    review: '0',
    shortfall: '0',
    coverage: '1',
    status: 'covered',
    ...overrides,
  });

  test('backed exactly, or within the carry, passes; short or over-backed with nothing in flight is named', async () => {
    await database.db.query(`INSERT INTO hedge_carry (underlying, side, shares) VALUES ('AAPL', 'buy', -0.0000000004)`);
    await insertReserveSnapshots(database.db, T0, [asset({ sharesHeld: '10.0000000013' })]);
    expect(await check()).toEqual([]);
    await insertReserveSnapshots(database.db, T0 + 1, [asset({ sharesHeld: '9.5', shortfall: '0.5', coverage: '0.95', status: 'short' })]);
    const [short, ...rest] = await check();
    expect(rest).toEqual([]);
    expect(formatViolation(short!)).toBe(
      '[1 backing] tokens not backed by shares held: symbol=AAPLon takenAt=2026-09-21T14:13:20.001Z tokens=10 sharesMultiplier=1 sharesRequired=10 sharesHeld=9.5 allowance=0.0000000014',
    );
    await insertReserveSnapshots(database.db, T0 + 2, [asset({ sharesHeld: '10.5' })]);
    expect((await check()).map((v) => [v.rule, v.records.sharesHeld])).toEqual([['shares held beyond the tokens and the rounding carry', '10.5']]);
  });

  test("the partner flow's rounding left with the issuer — a redemption's dust, a mint's remainder — is within the allowance, and no more", async () => {
    // A burn of 0.3333333333 tokens owes 0.333333333 shares (dust 0.0000000003); a mint of 1 share at a multiplier of 3
    // mints 0.333333333333333333 tokens (the issuer keeps 0.000000000000000001 of a share).
    await database.db.query(
      `INSERT INTO redemptions (redemption_id, chain, tx_hash, log_index, block_number, block_time, wallet, user_id, token, symbol, amount, usd_notional, state)
       VALUES ('r-1', 'ethereum-1', $1, 0, 10, $2, $3, $4, $3, 'AAPLon', 333333333300000000, 0, 'completed')`,
      [tx(70), T0, `0x${'d4'.repeat(20)}`, USER],
    );
    await database.db.query(
      `INSERT INTO partner_requests (issuer_request_id, kind, state, chain, underlying_symbol, token_symbol, wallet, qty, token_amount, shares_multiplier, share_dust, redemption_id)
       VALUES ('redeem-1', 'redeem', 'completed', 'ethereum-1', 'AAPL', 'AAPLon', $1, 0.333333333, 333333333300000000, 1, 0.0000000003, 'r-1')`,
      [`0x${'d4'.repeat(20)}`],
    );
    await database.db.query(
      `INSERT INTO partner_requests (issuer_request_id, kind, state, chain, underlying_symbol, token_symbol, wallet, qty, token_amount, shares_multiplier, tokenization_request_id)
       VALUES ('mint-1', 'mint', 'completed', 'ethereum-1', 'AAPL', 'AAPLon', $1, 1, 333333333333333333, 3, 'tok-1')`,
      [`0x${'d4'.repeat(20)}`],
    );
    // One broker unit, the dust and the remainder: 0.000000001 + 0.0000000003 + 0.000000000000000001.
    await insertReserveSnapshots(database.db, T0, [asset({ sharesHeld: '10.000000001300000001' })]);
    expect(brief(await check()).filter((violation) => violation.invariant === '1 backing')).toEqual([]);
    await insertReserveSnapshots(database.db, T0 + 1, [asset({ sharesHeld: '10.000000001300000002' })]);
    expect((await check()).filter((violation) => violation.invariant === '1 backing').map((v) => [v.rule, v.records.allowance])).toEqual([
      ['shares held beyond the tokens and the rounding carry', '0.000000001300000001'],
    ]);
  });

  test("an asset with hedges in flight is not judged until they fill; a filled hedge's carry left in flight is nothing", async () => {
    await insertReserveSnapshots(database.db, T0, [asset({ sharesHeld: '9', inFlight: { hedges: '1', redemptions: '0', partnerMints: '0' } })]);
    expect(await check()).toEqual([]);
    await insertReserveSnapshots(database.db, T0 + 1, [asset({ sharesHeld: '9', inFlight: { hedges: '-0.0000000005', redemptions: '0', partnerMints: '0' } })]);
    expect((await check()).map((v) => [v.rule, v.records.sharesHeld])).toEqual([['tokens not backed by shares held', '9']]);
  });
});
