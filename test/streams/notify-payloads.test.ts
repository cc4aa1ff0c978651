/**
 * Announcements between processes fit PostgreSQL's NOTIFY limit (under 8,000 bytes) however large the batch, and
 * carry every price and every streamed candle bucket of it.
 */
import { announcementPayloads } from '../../streams/market-data-notify';

test('a batch of 1,000 prices and their candles is split into payloads under 8,000 bytes that carry all of it', () => {
  const prices = Array.from({ length: 1_000 }, (_, index) => ({
    symbol: `SYM${index}on`,
    tokenPrice: '123456.123456789012345678',
    underlyingPrice: '123456.1234',
    observedAt: 1_800_000_000_000 + index,
  }));
  const candles = prices.flatMap(({ symbol }) =>
    ['1min', '5min', '15min', '1hour', '1day'].flatMap((interval) => [
      { symbol, interval, bucketStart: 1_800_000_000_000, market: 'primary' },
      { symbol, interval, bucketStart: 1_800_000_000_000, market: 'underlying' },
    ]),
  );
  const payloads = announcementPayloads('origin-a', { prices, candles });
  expect(payloads.length).toBeGreaterThan(10);
  for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8_000);
  const parsed = payloads.map((payload) => JSON.parse(payload) as { origin: string; prices: unknown[]; candles: { interval: string }[] });
  expect(new Set(parsed.map((announcement) => announcement.origin))).toEqual(new Set(['origin-a']));
  expect(parsed.flatMap((announcement) => announcement.prices)).toEqual(prices);
  const announced = parsed.flatMap((announcement) => announcement.candles);
  expect(announced).toHaveLength(3_000);
  expect(new Set(announced.map((candle) => candle.interval))).toEqual(new Set(['1min', '5min', '15min']));
});

test('an empty batch announces nothing', () => {
  expect(announcementPayloads('origin-a', { prices: [], candles: [] })).toEqual([]);
});
