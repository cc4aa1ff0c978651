import { Decimal, formatDecimal } from '../../../domain/money';
import { change24h, dividendYield, payoutFrequency } from '../../../domain/market/statistics';

const DAY_MS = 86_400_000;

/** Payment dates `gaps` days apart, starting 2024-01-10. */
function datesWithGaps(...gaps: number[]): string[] {
  let t = Date.UTC(2024, 0, 10);
  const dates = [new Date(t).toISOString().slice(0, 10)];
  for (const gap of gaps) {
    t += gap * DAY_MS;
    dates.push(new Date(t).toISOString().slice(0, 10));
  }
  return dates;
}

describe('payoutFrequency', () => {
  test.each([
    [24, 'irregular'],
    [25, 'monthly'],
    [35, 'monthly'],
    [36, 'irregular'],
    [79, 'irregular'],
    [80, 'quarterly'],
    [100, 'quarterly'],
    [101, 'irregular'],
    [159, 'irregular'],
    [160, 'semi-annually'],
    [200, 'semi-annually'],
    [201, 'irregular'],
    [344, 'irregular'],
    [345, 'annually'],
    [385, 'annually'],
    [386, 'irregular'],
  ])('a %i-day gap is %s', (gap, expected) => {
    expect(payoutFrequency(datesWithGaps(gap))).toBe(expected);
    if (gap * 2 < 730) expect(payoutFrequency(datesWithGaps(gap, gap))).toBe(expected);
  });

  test('classifies by the average gap, not each gap', () => {
    expect(payoutFrequency(datesWithGaps(20, 40))).toBe('monthly');
    expect(payoutFrequency(datesWithGaps(60, 142))).toBe('irregular');
    expect(payoutFrequency(datesWithGaps(147, 219))).toBe('semi-annually');
  });

  test('no dividends is none, a single dividend is irregular', () => {
    expect(payoutFrequency([])).toBe('none');
    expect(payoutFrequency(['2026-03-02'])).toBe('irregular');
  });

  test('order and duplicates do not matter', () => {
    expect(payoutFrequency(['2026-06-01', '2026-03-02', '2025-12-01', '2026-03-02'])).toBe('quarterly');
  });

  test('only looks at the two years up to now', () => {
    const now = Date.parse('2026-11-21T17:00:00Z');
    // Quarterly until 2023, then nothing: stopped paying.
    expect(payoutFrequency(['2023-03-01', '2023-06-01', '2023-09-01', '2023-12-01'], now)).toBe('none');
    // Monthly long ago, annual recently: the recent cadence wins.
    const old = datesWithGaps(30, 30, 30).map((d) => d.replace('2024', '2022'));
    expect(payoutFrequency([...old, '2025-06-02', '2026-06-01'], now)).toBe('annually');
    // Scheduled payments after today do not count yet.
    expect(payoutFrequency(['2026-10-01', '2026-12-01', '2027-01-01'], now)).toBe('irregular');
    expect(() => payoutFrequency(['2026-13-01'])).toThrow(RangeError);
  });
});

describe('dividendYield', () => {
  const now = Date.parse('2026-11-21T17:00:00Z'); // 12:00 in New York
  const dividends = [
    { exDate: '2025-11-21', cashAmount: '5' }, // exactly 365 days ago: outside
    { exDate: '2025-11-22', cashAmount: '0.5' },
    { exDate: '2026-05-20', cashAmount: '0.25' },
    { exDate: '2026-11-21', cashAmount: '0.25' }, // today: inside
    { exDate: '2026-11-23', cashAmount: '7' }, // ahead: outside
  ];

  test('sums the past year of cash over the current price', () => {
    expect(formatDecimal(dividendYield(dividends, now, '50'))).toBe('0.02');
    expect(formatDecimal(dividendYield(dividends, now, new Decimal('20')))).toBe('0.05');
  });

  test('rounds down to 18 decimals', () => {
    expect(dividendYield([{ exDate: '2026-11-01', cashAmount: '1' }], now, '3').toFixed()).toBe('0.333333333333333333');
    expect(dividendYield([{ exDate: '2026-11-01', cashAmount: '2' }], now, '3').toFixed()).toBe('0.666666666666666666');
  });

  test('is zero without dividends or without a price', () => {
    expect(dividendYield([], now, '100').isZero()).toBe(true);
    expect(dividendYield(dividends, now, '0').isZero()).toBe(true);
  });
});

describe('change24h', () => {
  test.each([
    ['101', '100', '1', '1'],
    ['99.5', '100', '-0.5', '-0.5'],
    ['1', '3', '-2', '-66.6667'],
    ['100.00005', '100', '0.00005', '0'], // 0.00005 %: half-even keeps the even digit,
    ['100.00015', '100', '0.00015', '0.0002'],
    ['100', '100', '0', '0'],
    ['5', '0', '5', '0'],
  ])('%s from %s', (current, start, change, pct) => {
    expect(change24h(current, start)).toEqual({ priceChange24h: change, priceChangePct24h: pct });
  });

  test('accepts Decimals', () => {
    expect(change24h(new Decimal('250.1234567891'), new Decimal('250'))).toEqual({
      priceChange24h: '0.1234567891',
      priceChangePct24h: '0.0494',
    });
  });
});
