/**
 * `npm run bench`: every benchmark of the product in one run, printed with the ratios the goals are
 * stated in. Uses DATABASE_URL if set (it is migrated, seeded and written to), otherwise a throw-away
 * embedded PostgreSQL. BENCH_SECONDS sets each load phase (default 10). `npm run bench -- streams` runs only the
 * live streams mode, `npm run bench -- partner` only the partner in-kind flow, `npm run bench -- chains` only chain
 * watching (seen and final latencies, scan throughput), `npm run bench -- console` only the operator console over
 * 100 000 workflows and a 10 000-event history.
 */
import { startTestDatabase } from '../harness/database';
import { benchApi, prepareBenchDatabase } from './api';
import { benchAttestations } from './attestations';
import { benchChains, formatChains } from './chains';
import { benchConsole, formatConsole } from './console';
import { benchContract } from './contract';
import { benchDomain } from './domain';
import { formatResults, loadGenerator, type LoadResult } from './load';
import { benchPartner, formatPartner } from './partner';
import { benchStreams, formatStreams } from './streams';
import { benchWorkflowModes, formatWorkflowModes } from './workflows';

const write = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  const temporary = process.env.DATABASE_URL ? undefined : await startTestDatabase();
  const databaseUrl = process.env.DATABASE_URL ?? temporary!.url;
  try {
    if (process.argv.slice(2).includes('streams')) {
      await prepareBenchDatabase(databaseUrl);
      for (const line of formatStreams(await benchStreams(databaseUrl, { seconds }))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('chains')) {
      for (const line of formatChains(await benchChains(databaseUrl))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('console')) {
      for (const line of formatConsole(await benchConsole(databaseUrl))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('partner')) {
      for (const line of formatPartner(await benchPartner(databaseUrl, { seconds }))) write(line);
      return;
    }
    const domain = benchDomain();
    write('Domain');
    write(`  price model: ${domain.priceEvaluationUs.toFixed(2)} µs per evaluation (portfolio ${domain.portfolioEvaluationUs.toFixed(2)} µs)`);
    write(`  session lookup: ${domain.sessionLookupNs.toFixed(0)} ns`);
    const contract = benchContract();
    write('OpenAPI document');
    write(`  generated from the operations in ${contract.documentMs.toFixed(1)} ms`);
    write(`  checking an answer (CHECK_ANSWERS): ${contract.smallAnswerUs.toFixed(2)} µs for one price, ${contract.largeAnswerUs.toFixed(0)} µs for a day of minute candles`);

    await prepareBenchDatabase(databaseUrl);
    write(`API, 50 connections each, load from ${loadGenerator}`);
    const api = await benchApi(databaseUrl, seconds);
    write(formatResults(api));
    const [bare, bareSame, latest, ohlc] = api as [LoadResult, LoadResult, LoadResult, LoadResult];
    write(`  latest prices / bare Koa throughput: ${(latest.requestsPerSecond / bare.requestsPerSecond).toFixed(2)} against the tiny object, ${(latest.requestsPerSecond / bareSame.requestsPerSecond).toFixed(2)} at equal payload (goal ≥ 0.60)`);
    write(`  OHLC 1min/1day p99: ${ohlc.p99Ms} ms (goal ≤ 25 ms)`);

    for (const session of ['regular', 'offhours'] as const) {
      const attestations = await benchAttestations(databaseUrl, session, seconds);
      write(`Attestations in the ${session} session, 32 connections over 32 accounts, load from ${loadGenerator}`);
      write(formatResults(attestations.results));
      const [floor, real] = attestations.results as [LoadResult, LoadResult];
      write(`  with workflow / floor throughput: ${(real.requestsPerSecond / floor.requestsPerSecond).toFixed(2)} (goal ≥ 0.50); p99 ${real.p99Ms} ms (goal ≤ 50 ms)`);
      write(`  attestations stored: ${attestations.attestations}`);
    }

    const workflows = await benchWorkflowModes(databaseUrl, { concurrency: 50, total: 1000 });
    for (const line of formatWorkflowModes(workflows)) write(line);

    for (const line of formatChains(await benchChains(databaseUrl))) write(line);

    for (const line of formatStreams(await benchStreams(databaseUrl, { seconds }))) write(line);

    for (const line of formatPartner(await benchPartner(databaseUrl, { seconds }))) write(line);

    for (const line of formatConsole(await benchConsole(databaseUrl))) write(line);
  } finally {
    await temporary?.stop();
  }
}

// The Temporal SDK's native runtime keeps the process alive once a worker has run: exit when done.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
