/** The answers of the tickers resource as zod schemas (named in the OpenAPI document); the routes' types come from them. */
import { z } from 'zod';
import { component } from '../../contract/components';

export const tickerSchema = component(
  'Ticker',
  z
    .object({
      tickerId: z.string().describe('`<base>_<target>`, e.g. `AAPLon_USDon`.'),
      baseCurrency: z.string().describe('The token.'),
      targetCurrency: z.string().describe('The settlement token, `USDon`.'),
      lastPrice: z.number().nonnegative().describe('The latest price of the token in the settlement token.'),
      baseVolume: z.number().nonnegative().describe('Tokens traded over the last 24 hours.'),
      targetVolume: z.number().nonnegative().describe('Settlement tokens traded over the last 24 hours.'),
    })
    .describe('The one answer with JSON numbers rather than decimal strings, as the ticker format requires.'),
);
export type Ticker = z.infer<typeof tickerSchema>;
