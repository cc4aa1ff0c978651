/**
 * When the brokerage sandbox trades, on the one calendar: premarket, regular and postmarket, never in a transition
 * pause between them, and a trading day (which ends day orders) that runs through those pauses to the postmarket close.
 */
import { newYorkTime } from '../../../domain/calendar';
import { marketHoursAt } from '../../../broker/trading/market';

const at = (time: string, date = '2025-06-11'): number => newYorkTime(date, time);

test.each([
  ['03:58', at('04:01')],
  ['09:29', at('09:31')],
  ['09:30', at('09:31')],
  ['15:59', at('16:01')],
  ['20:00', at('04:01', '2025-06-12')],
])('closed at %s (a pause or overnight), opening at the next session', (time, nextOpenAt) => {
  expect(marketHoursAt(at(time))).toEqual({ open: false, nextOpenAt });
});

test.each(['04:01', '09:28', '09:31', '15:58', '16:01', '19:58'])('open at %s, the trading day closing at 19:59 through its pauses', (time) => {
  expect(marketHoursAt(at(time))).toEqual({ open: true, closesAt: at('19:59') });
});

test('an early close ends the trading day at 16:59, after the 12:59–13:01 pause', () => {
  expect(marketHoursAt(newYorkTime('2025-11-28', '10:00'))).toEqual({ open: true, closesAt: newYorkTime('2025-11-28', '16:59') });
  expect(marketHoursAt(newYorkTime('2025-11-28', '13:00'))).toEqual({ open: false, nextOpenAt: newYorkTime('2025-11-28', '13:01') });
});
