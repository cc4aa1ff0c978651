/** The `sort` query parameter of price lists: ascending or descending by token price. */
import { z } from 'zod';
import { Decimal } from '../../../domain/money';

export const sortQuery = z.object({ sort: z.enum(['asc', 'desc']).optional().describe('Order by token price; default symbol order.') });

export type SortOrder = z.infer<typeof sortQuery>['sort'];

/** Sorts by price (decimal strings, compared exactly); ties and no order keep symbol order. */
export function sortByPrice<T>(items: T[], price: (item: T) => string, order: SortOrder): T[] {
  if (!order) return items;
  const direction = order === 'asc' ? 1 : -1;
  return [...items].sort((a, b) => direction * new Decimal(price(a)).comparedTo(new Decimal(price(b))));
}
