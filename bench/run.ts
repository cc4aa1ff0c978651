/**
 * `npm run bench`: every benchmark of the product in one run, printed as a table with the ratios
 * the goals are stated in. Uses DATABASE_URL if set, otherwise a throw-away embedded PostgreSQL.
 */
import { startTestDatabase } from '../test/setup/database';
import { benchApi, loadGenerator, type LoadResult } from './api';
import { benchDomain } from './domain';

function printTable(results: LoadResult[]): void {
  const rows = results.map((r) => `  ${r.name.padEnd(48)} ${String(r.requestsPerSecond).padStart(8)} req/s   p50 ${String(r.p50Ms).padStart(4)} ms   p99 ${String(r.p99Ms).padStart(4)} ms   errors ${r.errors}`);
  process.stdout.write(`${rows.join('\n')}\n`);
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const temporary = process.env.DATABASE_URL ? undefined : await startTestDatabase();
  try {
    const domain = benchDomain();
    process.stdout.write(
      `Domain\n  price model: ${domain.priceEvaluationUs.toFixed(2)} µs per evaluation (portfolio ${domain.portfolioEvaluationUs.toFixed(2)} µs)\n` +
        `  session lookup: ${domain.sessionLookupNs.toFixed(0)} ns\n`,
    );
    process.stdout.write(`API (50 connections each, load from ${loadGenerator})\n`);
    const results = await benchApi(process.env.DATABASE_URL ?? temporary!.url, seconds);
    printTable(results);
    const [bare, latest, ohlc] = results as [LoadResult, LoadResult, LoadResult];
    process.stdout.write(
      `  latest prices / bare Koa throughput: ${(latest.requestsPerSecond / bare.requestsPerSecond).toFixed(2)} (goal ≥ 0.60)\n` +
        `  OHLC 1min/1day p99: ${ohlc.p99Ms} ms (goal ≤ 25 ms)\n`,
    );
  } finally {
    await temporary?.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
