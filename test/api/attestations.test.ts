/**
 * POST /v1/attestations and GET /v1/attestations/{id} against the real app and PostgreSQL: validation, refusals, every
 * limit (including a 50-way race), idempotency, and signatures verified independently (viem for EIP-712; on Solana the
 * transaction checked offline). Soft quotes and the published signers have files of their own.
 */
import { recoverTypedDataAddress } from 'viem';
import { FIXTURE_TOKEN_MANAGERS } from '../../harness/fixture-deployments';
import { quoteOf } from '../support/quotes';
import { newYorkTime } from '../../domain/calendar';
import { Decimal } from '../../domain/money';
import { getTransactionDecoder, type Address } from '@solana/kit';
import { EIP712_DOMAIN_NAME, QUOTE_TYPES } from '../../signing';
import { verifySolanaAttestationTransaction } from '../../signing/verify-solana-transaction';
import { createTestApi, TEST_BASE_URL, testSigners, testSolanaAccounts, type TestApi } from '../support/api';

const MONDAY_10AM = newYorkTime('2026-11-23', '10:00');
const SATURDAY_NOON = newYorkTime('2026-11-28', '12:00');
const TUESDAY_11PM = newYorkTime('2026-11-24', '23:00');
const SOLANA_WALLET = 'GvpCiTGbQbyGSF9ZxWx1jYsVRV7YkgDnjVgBR8oVRhW9';

let api: TestApi;
beforeEach(async () => {
  api = await createTestApi();
  await api.tradeAt(MONDAY_10AM);
});
afterEach(() => api.close());

const attest = (body: object, key = api.keys.write) => api.http.post('/v1/attestations').set('x-api-key', key).send(body);
const soft = (body: object, key = api.keys.write) => api.http.post('/v1/attestations/soft').set('x-api-key', key).send(body);
const count = async () => (await api.db.query<{ n: number }>('SELECT count(*)::int AS n FROM attestations')).rows[0]!.n;
const tokenPrice = async (symbol: string) =>
  new Decimal((await api.db.query<{ p: string }>('SELECT token_price::text AS p FROM latest_prices WHERE symbol = $1', [symbol])).rows[0]!.p);
const setLimit = (symbol: string, session: string, count: number, active: string, perSession = '10000000') =>
  api.db.query('UPDATE session_limits SET max_attestation_count = $3, max_active_notional_value = $4, max_session_notional_value = $5 WHERE symbol = $1 AND session = $2', [
    symbol, session, count, active, perSession,
  ]);

const valid = { symbol: 'AAPLon', side: 'buy', tokenAmount: '1.5' };

describe('request validation', () => {
  test.each([
    [{}, 'MISSING_SYMBOL', 'symbol'],
    [{ ...valid, symbol: 'AAPL' }, 'INVALID_SYMBOL', 'Symbol'],
    [{ ...valid, symbol: 5 }, 'INVALID_SYMBOL', 'symbol'],
    [{ symbol: 'AAPLon', tokenAmount: '1' }, 'MISSING_SIDE', 'side'],
    [{ ...valid, side: 'hold' }, 'INVALID_SIDE', 'side'],
    [{ ...valid, tokenAmount: 1.5 }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ ...valid, tokenAmount: '-1' }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ ...valid, tokenAmount: '0' }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ ...valid, tokenAmount: '0.000' }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ ...valid, tokenAmount: '1.0000000000000000001' }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ ...valid, tokenAmount: '1e3' }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ ...valid, tokenAmount: '' }, 'INVALID_TOKEN_AMOUNT', 'tokenAmount'],
    [{ symbol: 'AAPLon', side: 'buy', notionalValue: 100 }, 'INVALID_NOTIONAL_VALUE', 'notionalValue'],
    [{ symbol: 'AAPLon', side: 'buy', notionalValue: '-5' }, 'INVALID_NOTIONAL_VALUE', 'notionalValue'],
    [{ ...valid, notionalValue: '100' }, 'INVALID_AMOUNT', 'not both'],
    [{ symbol: 'AAPLon', side: 'buy' }, 'MISSING_TOKEN_OR_NOTIONAL', 'required'],
    [{ side: 'buy', tokenAmount: '1' }, 'MISSING_SYMBOL', 'symbol'],
    [{ ...valid, duration: 'medium' }, 'INVALID_DURATION', 'duration'],
    [{ ...valid, chainId: 'polygon-137' }, 'INVALID_GM_CHAIN', 'chainId'],
    [{ ...valid, chainId: 1 }, 'INVALID_GM_CHAIN', 'chainId'],
    [{ ...valid, chainId: 'solana-900' }, 'MISSING_USER_ADDRESS', 'userAddress'],
    [{ ...valid, chainId: 'solana-900', userAddress: 'not-base58!' }, 'INVALID_USER_ADDRESS', 'userAddress'],
    [{ ...valid, chainId: 'solana-900', userAddress: '3yZe7d' }, 'INVALID_USER_ADDRESS', 'userAddress'],
  ])('%j → 400 %s', async (body, code, mentions) => {
    const response = await attest(body);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe(code);
    expect(response.body.message).toContain(mentions);
    expect(await count()).toBe(0);
  });

  test('an unknown symbol is 404 ASSET_NOT_FOUND', async () => {
    const response = await attest({ ...valid, symbol: 'ZZZZon' });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('ASSET_NOT_FOUND');
  });

  test('a body that is not JSON is 400', async () => {
    const response = await api.http.post('/v1/attestations').set('x-api-key', api.keys.write).set('content-type', 'application/json').send('{');
    expect(response.body.code).toBe('MALFORMED_JSON');
  });
});

describe('an attestation', () => {
  test('has the documented fields, a valid EIP-712 signature by the configured signer, and is stored outstanding', async () => {
    const response = await attest(valid);
    expect(response.status).toBe(200);
    const body = response.body;
    const mid = await tokenPrice('AAPLon');
    const { rows } = await api.db.query('SELECT a.user_id FROM accounts a JOIN api_keys k ON k.account_id = a.id WHERE k.scope = $1', ['write']);
    expect(body).toEqual({
      attestationId: expect.stringMatching(/^\d+$/),
      userId: rows[0].user_id,
      chainId: '1',
      symbol: 'AAPLon',
      ticker: 'AAPL',
      assetAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      side: '0',
      tokenAmount: '1500000000000000000',
      price: expect.stringMatching(/^\d+$/),
      expiration: Math.floor(MONDAY_10AM / 1000) + 30,
      signature: expect.any(String),
      additionalData: Buffer.alloc(32).toString('base64'),
    });
    expect(BigInt(body.attestationId) < 1n << 128n).toBe(true);
    // A buy pays the short spread (10 bps for stocks) over mid.
    const price = new Decimal(body.price).dividedBy('1e18');
    expect(price.toFixed(6)).toBe(mid.times('1.001').toFixed(6));

    const signature = Buffer.from(body.signature, 'base64');
    expect(signature).toHaveLength(65);
    const signer = await recoverTypedDataAddress({
      domain: { name: EIP712_DOMAIN_NAME, version: '1', chainId: 1, verifyingContract: FIXTURE_TOKEN_MANAGERS['ethereum-1'] },
      types: QUOTE_TYPES,
      primaryType: 'Quote',
      message: { ...quoteOf(body), asset: body.assetAddress as `0x${string}` },
      signature: `0x${signature.toString('hex')}`,
    });
    expect(signer).toBe(testSigners().evm.address);

    const stored = await api.db.query('SELECT state, token_amount::text, session, chain FROM attestations WHERE attestation_id = $1', [body.attestationId]);
    expect(stored.rows[0]).toEqual({ state: 'outstanding', token_amount: '1.5', session: 'regular', chain: 'ethereum-1' });
  });

  test('on bsc-56 carries chain id 56 and the BSC token address', async () => {
    const response = await attest({ ...valid, chainId: 'bsc-56', side: 'sell', duration: 'long' });
    expect(response.body).toMatchObject({ chainId: '56', side: '1' });
    const { rows } = await api.db.query(`SELECT address FROM asset_addresses WHERE symbol = 'AAPLon' AND network_chain_id = 'bsc-56'`);
    expect(response.body.assetAddress).toBe(rows[0].address);
    // A long quote lives longer.
    expect(response.body.expiration).toBe(Math.floor(MONDAY_10AM / 1000) + 300);
  });

  test("on solana-900 is the issuer's half of a transaction for the wallet, over a nonce of the pool, on the asset's mint", async () => {
    const response = await attest({ ...valid, chainId: 'solana-900', userAddress: SOLANA_WALLET });
    expect(response.status).toBe(200);
    const body = response.body;
    const solana = await testSolanaAccounts();
    expect(body).toMatchObject({ chainId: '900', assetAddress: solana.mints.get('AAPLon') });
    // The issuer's ed25519 signature over the message of the wire transaction in additionalData, built for the wallet.
    const verification = await verifySolanaAttestationTransaction(body, { ...solana, stockDecimals: solana.tokenDecimals, userAddress: SOLANA_WALLET });
    expect(verification).toMatchObject({ valid: true, user: SOLANA_WALLET });
    const transaction = getTransactionDecoder().decode(Buffer.from(body.additionalData, 'base64'));
    expect(Buffer.from(transaction.signatures[solana.issuer]!).toString('base64')).toBe(body.signature);
    expect(transaction.signatures[SOLANA_WALLET as Address]).toBeNull();
    // The nonce it carries is the one the pool holds for it.
    const { rows } = await api.db.query('SELECT address, nonce, state FROM solana_nonce_accounts WHERE attestation_id = $1', [body.attestationId]);
    expect(rows).toEqual([{ address: verification.nonceAccount, nonce: verification.nonce, state: 'held' }]);
    // Another wallet's request is refused by the check: the transaction names this one.
    expect((await verifySolanaAttestationTransaction(body, { ...solana, stockDecimals: solana.tokenDecimals, userAddress: 'Y4cj1i7GeSUPZUnwSrpxmG92DLCaxS5Z5QnXoDW4VpU' })).valid).toBe(false);
  });

  test('on solana-900 a trade smaller than one base unit of a mint is refused before a nonce is taken', async () => {
    const free = async () => (await api.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM solana_nonce_accounts WHERE state = 'free'`)).rows[0]!.n;
    const freeBefore = await free();
    // Less than 1e-9 token (the mint's 9 decimals), and a notional below one base unit of the stablecoin (6 decimals).
    const tokens = await attest({ ...valid, tokenAmount: '0.0000000001', chainId: 'solana-900', userAddress: SOLANA_WALLET });
    expect([tokens.status, tokens.body.code]).toEqual([400, 'INVALID_TOKEN_AMOUNT']);
    const notional = await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '0.0000001', chainId: 'solana-900', userAddress: SOLANA_WALLET });
    expect([notional.status, notional.body.code]).toEqual([400, 'INVALID_NOTIONAL_VALUE']);
    expect([await free(), await count()]).toEqual([freeBefore, 0]);
  });

  test("on Solana's genesis hash, as the reference's pages name the chain, is the solana-900 attestation", async () => {
    const response = await attest({ ...valid, chainId: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d', userAddress: SOLANA_WALLET });
    expect(response.status).toBe(200);
    expect(response.body.chainId).toBe('900');
    expect(getTransactionDecoder().decode(Buffer.from(response.body.additionalData, 'base64')).signatures).toHaveProperty(SOLANA_WALLET, null);
    const { rows } = await api.db.query('SELECT chain FROM attestations WHERE attestation_id = $1', [response.body.attestationId]);
    expect(rows).toEqual([{ chain: 'solana-900' }]);
  });

  test('ignores fields its schema does not name, as the reference issuer does: they change nothing', async () => {
    const response = await attest({ ...valid, price: '1', expiration: 1, note: 'from a generated client' });
    expect(response.status).toBe(200);
    expect(BigInt(response.body.price)).toBeGreaterThan(10n ** 18n);
    expect(response.body.expiration).toBe(Math.floor(MONDAY_10AM / 1000) + 30);
    expect(await count()).toBe(1);
  });

  test('by notional buys the notional divided by the price, rounded down', async () => {
    const response = await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '1000' });
    const price = new Decimal(response.body.price).dividedBy('1e18');
    const expected = new Decimal('1000').dividedBy(price).toDecimalPlaces(18, Decimal.ROUND_DOWN);
    expect(response.body.tokenAmount).toBe(expected.times('1e18').toFixed(0));
  });

  test('is readable by its owner with its state, and by nobody else', async () => {
    const created = (await attest(valid)).body;
    const own = await api.http.get(`/v1/attestations/${created.attestationId}`).set('x-api-key', api.keys.write);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ ...created, state: 'outstanding', executionTxHash: null });
    for (const key of [api.keys.admin, api.keys.read]) {
      const other = await api.http.get(`/v1/attestations/${created.attestationId}`).set('x-api-key', key);
      expect(other.status).toBe(404);
      expect(other.body.code).toBe('ATTESTATION_NOT_FOUND');
    }
    api.setNow(created.expiration * 1000);
    expect((await api.http.get(`/v1/attestations/${created.attestationId}`).set('x-api-key', api.keys.write)).body.state).toBe('expired');
    expect((await api.http.get('/v1/attestations/12x').set('x-api-key', api.keys.write)).body.code).toBe('INVALID_PARAMETER');
  });
});

describe('refusals before anything is counted', () => {
  test('a read-only key is 403 READ_ONLY_API_KEY', async () => {
    const response = await attest(valid, api.keys.read);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('READ_ONLY_API_KEY');
  });

  test.each([
    ['market closed: Saturday', SATURDAY_NOON, 'AAPLon', 'MARKET_CLOSED'],
    ['no overnight session for KOon', TUESDAY_11PM, 'KOon', 'ASSET_CLOSED_FOR_SESSION'],
  ])('%s → 403 %s', async (_name, now, symbol, code) => {
    await api.tradeAt(now);
    const response = await attest({ ...valid, symbol });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe(code);
    expect(await count()).toBe(0);
  });

  test.each([
    ['09:29', 'before the open'],
    ['09:30', 'at the open'],
    ['15:59', 'at the close'],
    ['19:59', 'before the overnight'],
  ])('the transition pause at %s (%s) refuses what trades only in sessions, attested or quoted: 403 MARKET_PAUSED', async (time) => {
    await api.tradeAt(newYorkTime('2026-11-23', time));
    for (const refused of [await attest(valid), await soft(valid)]) {
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'MARKET_PAUSED', message: expect.stringContaining('between sessions'), documentation: `${TEST_BASE_URL}/docs/errors#market_paused` });
    }
    expect(await count()).toBe(0);
  });

  test('an asset that trades off-hours is attested through a transition pause, on its off-hours limits from the pause\'s start', async () => {
    const pause = newYorkTime('2026-11-23', '09:29');
    await api.tradeAt(pause + 30_000);
    expect((await attest({ ...valid, symbol: 'SPYon' })).status).toBe(200);
    const stored = await api.db.query('SELECT session, session_started_at::text AS started FROM attestations');
    expect(stored.rows).toEqual([{ session: 'offhours', started: String(pause) }]);
    await api.tradeAt(newYorkTime('2026-11-23', '09:31'));
    expect((await attest(valid)).status).toBe(200);
  });

  test('an asset that trades off-hours can be attested on a Saturday', async () => {
    await api.tradeAt(SATURDAY_NOON);
    expect((await attest({ ...valid, symbol: 'SPYon' })).status).toBe(200);
  });

  test('a paused market and a paused asset are refused', async () => {
    const admin = (path: string, body?: object) => api.http.post(path).set('x-api-key', api.keys.admin).send(body);
    await admin('/v1/status/assets/AAPLon/pause', { reason: 'news' });
    expect((await attest(valid)).body.code).toBe('ASSET_PAUSED');
    expect((await attest({ ...valid, symbol: 'MSFTon' })).status).toBe(200);
    await admin('/v1/status/market/pause', { reason: 'halt' });
    expect((await attest({ ...valid, symbol: 'MSFTon' })).body.code).toBe('MARKET_PAUSED');
    expect(await count()).toBe(1);
  });

  test('a limited asset takes small orders only: one over the limited size is 400 MAX_LIMIT_REACHED, as the reference issuer answers it', async () => {
    await api.http.post('/v1/status/assets/AAPLon/limit').set('x-api-key', api.keys.admin).send({ reason: 'volatility' });
    const over = await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '20000' });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ code: 'MAX_LIMIT_REACHED', message: expect.stringContaining('limited'), documentation: `${TEST_BASE_URL}/docs/errors#max_limit_reached` });
    expect((await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '5000' })).status).toBe(200);
  });

  test('a redeem-only asset (an operator event) is sold, not bought: a buy is 403 ASSET_REDEEM_ONLY, quoted or attested, and its buy limits are closed', async () => {
    const event = { symbol: 'AAPLon', code: 'ASSET_REDEEM_ONLY', reason: 'merger', start: MONDAY_10AM - 60_000, end: MONDAY_10AM + 3_600_000 };
    expect((await api.http.post('/v1/status/assets/events').set('x-api-key', api.keys.admin).send(event)).status).toBe(201);
    for (const refused of [await attest(valid), await soft(valid)]) {
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'ASSET_REDEEM_ONLY', message: expect.stringContaining('redeem-only'), documentation: `${TEST_BASE_URL}/docs/errors#asset_redeem_only` });
    }
    expect(await count()).toBe(0);
    expect((await attest({ ...valid, side: 'sell' })).status).toBe(200);
    expect((await attest({ ...valid, symbol: 'MSFTon' })).status).toBe(200);
    const limits = (side: string) => api.http.get(`/v1/limits/trading?symbol=AAPLon&side=${side}`).set('x-api-key', api.keys.write);
    expect((await limits('buy')).body).toMatchObject({ isAssetTradingOpen: false, maxNotionalValue: '0', reason: { code: 'ASSET_REDEEM_ONLY' } });
    expect((await limits('sell')).body).toMatchObject({ isAssetTradingOpen: true });
  });

  test('a stale price is not quoted (503 PRICE_UNAVAILABLE), and the answer says when to come back (Retry-After, as every 503)', async () => {
    api.setNow(MONDAY_10AM + 60_000);
    for (const response of [await attest(valid), await soft(valid)]) {
      expect(response.status).toBe(503);
      expect(response.body.code).toBe('PRICE_UNAVAILABLE');
      expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    }
  });
});

describe('limits', () => {
  test('Max Attestation Count: outstanding ones count until they expire', async () => {
    await setLimit('AAPLon', 'regular', 2, '1000000');
    expect((await attest(valid)).status).toBe(200);
    const second = (await attest(valid)).body;
    const third = await attest(valid);
    expect(third.status).toBe(400);
    expect(third.body.code).toBe('MAX_ATTESTATIONS');
    // Another user is not affected.
    expect((await attest(valid, api.keys.admin)).status).toBe(200);
    // Expiry releases the count by time, even before any workflow records it.
    await api.tradeAt(second.expiration * 1000);
    expect((await attest(valid)).status).toBe(200);
  });

  test('an executed attestation stops counting as outstanding', async () => {
    await setLimit('AAPLon', 'regular', 1, '1000000');
    const first = (await attest(valid)).body;
    expect((await attest(valid)).body.code).toBe('MAX_ATTESTATIONS');
    await api.db.query(`UPDATE attestations SET state = 'executed' WHERE attestation_id = $1`, [first.attestationId]);
    expect((await attest(valid)).status).toBe(200);
  });

  test('Max Active Notional Value', async () => {
    await setLimit('AAPLon', 'regular', 10, '1000');
    expect((await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '600' })).status).toBe(200);
    const over = await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '600' });
    expect([over.status, over.body.code]).toEqual([400, 'MAX_LIMIT_REACHED']);
    expect((await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '300' })).status).toBe(200);
  });

  test('Session Notional Value counts executed attestations of the session', async () => {
    await setLimit('AAPLon', 'regular', 10, '1000', '1500');
    const first = (await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '900' })).body;
    await api.db.query(`UPDATE attestations SET state = 'executed' WHERE attestation_id = $1`, [first.attestationId]);
    const over = await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '700' });
    expect([over.status, over.body.code]).toEqual([400, 'SESSION_LIMIT_REACHED']);
    expect((await attest({ symbol: 'AAPLon', side: 'buy', notionalValue: '500' })).status).toBe(200);
  });

  test('off-hours exposure caps apply across users', async () => {
    await api.close();
    api = await createTestApi({ attestationSettings: { offhoursGlobalExposure: new Decimal('1000'), offhoursAssetExposure: new Decimal('800') } });
    await api.tradeAt(SATURDAY_NOON);
    expect((await attest({ symbol: 'SPYon', side: 'buy', notionalValue: '700' })).status).toBe(200);
    const over = await attest({ symbol: 'SPYon', side: 'buy', notionalValue: '200' }, api.keys.admin);
    expect([over.status, over.body.code]).toEqual([400, 'OFFHOURS_EXPOSURE_LIMIT_REACHED']);
    // The asset cap (800) refuses more SPYon; the global cap (1000) refuses 350 more of anything.
    expect((await attest({ symbol: 'QQQon', side: 'buy', notionalValue: '350' }, api.keys.admin)).body.code).toBe('OFFHOURS_EXPOSURE_LIMIT_REACHED');
    expect((await attest({ symbol: 'QQQon', side: 'buy', notionalValue: '250' }, api.keys.admin)).status).toBe(200);
    // A Solana order refused by the caps holds no nonce: the account its transaction had taken is free again.
    const free = async () => (await api.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM solana_nonce_accounts WHERE state = 'free'`)).rows[0]!.n;
    const freeBefore = await free();
    const onSolana = await attest({ symbol: 'QQQon', side: 'buy', notionalValue: '100', chainId: 'solana-900', userAddress: SOLANA_WALLET });
    expect([onSolana.status, onSolana.body.code]).toEqual([400, 'OFFHOURS_EXPOSURE_LIMIT_REACHED']);
    expect(await free()).toBe(freeBefore);
  });

  test('40 simultaneous off-hours requests of two users in two assets fill the global exposure cap exactly', async () => {
    await api.close();
    api = await createTestApi({ attestationSettings: { offhoursGlobalExposure: new Decimal('1000'), offhoursAssetExposure: new Decimal('1000') } });
    await api.tradeAt(SATURDAY_NOON);
    // Only the global cap may refuse: each user's own limits leave room for every request.
    for (const symbol of ['SPYon', 'QQQon']) await setLimit(symbol, 'offhours', 100, '100000000');
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        attest({ symbol: index % 2 ? 'SPYon' : 'QQQon', side: 'buy', notionalValue: '100' }, index % 4 < 2 ? api.keys.write : api.keys.admin),
      ),
    );
    const outcomes: Record<string, number> = {};
    for (const response of responses) outcomes[response.body.code ?? response.status] = (outcomes[response.body.code ?? response.status] ?? 0) + 1;
    expect(outcomes).toEqual({ 200: 10, OFFHOURS_EXPOSURE_LIMIT_REACHED: 30 });
  });

  test('50 simultaneous requests against a count limit of 5 yield exactly 5 attestations', async () => {
    await setLimit('AAPLon', 'regular', 5, '100000000');
    const responses = await Promise.all(Array.from({ length: 50 }, () => attest(valid)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(5);
    expect(responses.filter((response) => response.body.code === 'MAX_ATTESTATIONS')).toHaveLength(45);
    expect(await count()).toBe(5);
  });
});

describe('Idempotency-Key', () => {
  test('a retry with the same key and body answers the first attestation; another body is 422', async () => {
    const first = await attest(valid).set('Idempotency-Key', 'order-1');
    const retry = await attest({ tokenAmount: '1.5', side: 'buy', symbol: 'AAPLon' }).set('Idempotency-Key', 'order-1');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    const conflict = await attest({ ...valid, tokenAmount: '2' }).set('Idempotency-Key', 'order-1');
    expect(conflict.status).toBe(422);
    expect(conflict.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await count()).toBe(1);
  });

  test('concurrent first calls with one key create one attestation', async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => attest(valid).set('Idempotency-Key', 'order-2')));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(new Set(responses.map((response) => response.body.attestationId)).size).toBe(1);
    expect(await count()).toBe(1);
  });

  test('the same key from another account is another attestation', async () => {
    const mine = (await attest(valid).set('Idempotency-Key', 'order-3')).body;
    const theirs = (await attest(valid, api.keys.admin).set('Idempotency-Key', 'order-3')).body;
    expect(theirs.attestationId).not.toBe(mine.attestationId);
  });

  test('a malformed key is 400', async () => {
    expect((await attest(valid).set('Idempotency-Key', 'x'.repeat(300))).body.code).toBe('INVALID_IDEMPOTENCY_KEY');
  });

  test.each([
    ['an empty key', ''],
    ['a blank key', '   '],
  ])('%s is 400, not an attestation without a key', async (_name, key) => {
    const response = await attest(valid).set('Idempotency-Key', key);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('INVALID_IDEMPOTENCY_KEY');
    expect(await count()).toBe(0);
  });
});
