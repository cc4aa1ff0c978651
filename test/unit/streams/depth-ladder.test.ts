/** The depth ladder of StreamSoftQuoteDepth: the soft-quote spread widening with size, in equal slices of the largest order. */
import { Decimal } from '../../../domain/money';
import { quotePrice } from '../../../domain/pricing';
import { depthLadder } from '../../../streams/depth';

const pricing = { shortSpreadBps: 10, longSpreadBps: 50 };

test('five levels a side from the short spread to the long one, each the tokens of a fifth of the largest order', () => {
  const { asks, bids } = depthLadder(new Decimal('100'), pricing, new Decimal('10000'));
  expect(asks.map((level) => Number(level.price))).toEqual([100.1, 100.2, 100.3, 100.4, 100.5]);
  expect(bids.map((level) => Number(level.price))).toEqual([99.9, 99.8, 99.7, 99.6, 99.5]);
  expect(asks[0]).toEqual({ price: '100.100000000000000000', quantity: new Decimal(2000).dividedBy('100.1').toDecimalPlaces(18, Decimal.ROUND_DOWN).toFixed(18) });
  expect(bids[4]).toEqual({ price: '99.500000000000000000', quantity: new Decimal(2000).dividedBy('99.5').toDecimalPlaces(18, Decimal.ROUND_DOWN).toFixed(18) });
});

test('the best levels are the soft quotes of the short duration, the worst those of the long one', () => {
  const mid = new Decimal('256.7918080705805');
  const policy = { ...pricing, shortTtlSeconds: 30, longTtlSeconds: 300 };
  const { asks, bids } = depthLadder(mid, pricing, new Decimal('1000000'));
  expect([asks[0]!.price, asks[4]!.price, bids[0]!.price, bids[4]!.price]).toEqual(
    [quotePrice(mid, 'buy', 'short', policy), quotePrice(mid, 'buy', 'long', policy), quotePrice(mid, 'sell', 'short', policy), quotePrice(mid, 'sell', 'long', policy)].map((price) => price.toFixed(18)),
  );
});
