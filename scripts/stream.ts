/**
 * `npm run stream -- <prices|ohlc|depth|health> …`: a client of the gRPC live streams, the reference issuer's calls
 * (`ondo.gm.backend.v1.BackendService`, proto/ondo/gm/backend/v1/backend.proto), that needs only the project. Prints
 * each frame as one JSON line, as grpcurl does (`{"updates": [...]}`); stops once `--count` updates have come, or on
 * Ctrl-C. With `--count`, it gives up once no update has come for `--timeout` seconds, saying which of the assets
 * asked for do not trade in the session running then (their latest price comes first, then nothing until their
 * market opens).
 * Address and key default to the stack `npm start` runs (DATA_DIR/stack.json: `grpc.address`, the read key).
 */
import { parseArgs } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { exitWithUsageOnHelp } from '../config/cli';
import { loadConfig } from '../config';
import { sessionAt } from '../domain/calendar';
import { CATALOGUE } from '../domain/catalogue';
import { isTokenOpen } from '../domain/market/trading-hours';
import { readStackFile } from '../start/stack-file';
import { BackendServiceClient } from '../streams/backend-proto';

const usage = `usage: npm run stream -- prices [SYMBOL...] [options]   StreamPriceUpdates: latest prices, then every change
       npm run stream -- ohlc [SYMBOL...] [--interval 1min|5min|15min] [options]
                                                        StreamOHLC: the current candles, their updates, each close
       npm run stream -- depth [SYMBOL...] [options]    StreamSoftQuoteDepth: each asset's indicative bids and asks
       npm run stream -- health                         HealthCheck (no key)
(no symbols: every asset)
options:
  --count N          stop after N updates (default: run until Ctrl-C)
  --timeout S        with --count: give up, exit 1, once no update has come for S seconds (default 30)
  --last-event-id ID prices and ohlc: resume after this frame (the lastEventId of an earlier one)
  --address H:P      the gRPC address (default: grpc.address of DATA_DIR/stack.json)
  --key KEY          the API key (default: the read key of DATA_DIR/stack.json)`;

function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Why a stream of `symbols` (none: every asset) can fall silent now: those that do not trade in the running session. */
function quietReason(symbols: readonly string[]): string {
  const session = sessionAt(Date.now());
  const period = session === 'paused' ? 'the transition pause between sessions' : `the ${session} session`;
  const asked = symbols.length > 0 ? CATALOGUE.filter((asset) => symbols.includes(asset.symbol)) : CATALOGUE;
  const closed = asked.filter((asset) => !isTokenOpen(asset, session)).map((asset) => asset.symbol);
  if (closed.length === 0) return `each asset asked for trades in ${period}`;
  return `${closed.join(', ')} ${closed.length === 1 ? 'does' : 'do'} not trade in ${period}: a closed market's latest price comes first, then nothing until it opens`;
}

function main(): void {
  exitWithUsageOnHelp(usage);
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { count: { type: 'string' }, timeout: { type: 'string', default: '30' }, interval: { type: 'string' }, 'last-event-id': { type: 'string' }, address: { type: 'string' }, key: { type: 'string' } },
  });
  const [kind, ...symbols] = positionals;
  if (kind !== 'prices' && kind !== 'ohlc' && kind !== 'depth' && kind !== 'health') fail(usage);
  const count = values.count === undefined ? Number.POSITIVE_INFINITY : Number(values.count);
  if (!(count > 0) || (Number.isFinite(count) && !Number.isInteger(count))) fail(`--count takes a positive whole number, not ${values.count}`);
  const timeoutMs = Number(values.timeout) * 1000;
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) fail(`--timeout takes a positive number of seconds, not ${values.timeout}`);
  const stack = readStackFile(loadConfig(['DATA_DIR']).DATA_DIR);
  const address = values.address ?? (stack?.grpc as { address?: string } | undefined)?.address;
  const key = values.key ?? stack?.keys?.read;
  if (!address || (!key && kind !== 'health')) fail('no address or key: pass --address and --key, or run `npm start` first so DATA_DIR/stack.json names them');

  const client = new BackendServiceClient(address, grpc.credentials.createInsecure());
  if (kind === 'health') {
    (client as unknown as { HealthCheck(request: object, callback: (error: grpc.ServiceError | null, answer: unknown) => void): void }).HealthCheck({}, (error, answer) => {
      client.close();
      if (error) fail(`${grpc.status[error.code]}: ${error.details}`, 1);
      process.stdout.write(`${JSON.stringify(answer)}\n`);
    });
    return;
  }
  const metadata = new grpc.Metadata();
  metadata.set('x-api-key', key!);
  const lastEventId = values['last-event-id'] ?? '';
  const open = (method: string, request: object): grpc.ClientReadableStream<unknown> =>
    (client as unknown as Record<string, (request: object, metadata: grpc.Metadata) => grpc.ClientReadableStream<unknown>>)[method]!.call(client, request, metadata);
  const call =
    kind === 'prices'
      ? open('StreamPriceUpdates', { symbols, lastEventId })
      : kind === 'ohlc'
        ? open('StreamOHLC', { symbols, interval: values.interval ?? '', lastEventId })
        : open('StreamSoftQuoteDepth', { symbols });
  let received = 0;
  let quiet: NodeJS.Timeout | undefined;
  /** With --count, the stream is given up after --timeout without an update. */
  const waitForNext = (): void => {
    if (!Number.isFinite(count)) return;
    clearTimeout(quiet);
    quiet = setTimeout(() => {
      call.cancel();
      client.close();
      fail(`${received} of ${count} updates: none for ${values.timeout} s (${quietReason(symbols)})`, 1);
    }, timeoutMs);
  };
  waitForNext();
  call.on('data', (frame: { updates: unknown[] }) => {
    process.stdout.write(`${JSON.stringify(frame)}\n`);
    received += frame.updates.length;
    if (received >= count) {
      clearTimeout(quiet);
      call.cancel();
      client.close();
    } else {
      waitForNext();
    }
  });
  call.on('error', (error: grpc.ServiceError) => {
    clearTimeout(quiet);
    if (error.code === grpc.status.CANCELLED && received >= count) return;
    fail(`${grpc.status[error.code]}: ${error.details}`, 1);
  });
  call.on('end', () => client.close());
  process.once('SIGINT', () => {
    clearTimeout(quiet);
    call.cancel();
    client.close();
  });
}

main();
