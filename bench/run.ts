/**
 * `npm run bench`: every benchmark of the product in one run, printed with the ratios the goals are
 * stated in. Uses the PostgreSQL server of DATABASE_URL if set, otherwise a throw-away embedded one: each phase
 * runs on a database of its own there, copied from one prepared once (bench/databases.ts). BENCH_SECONDS sets each
 * load phase (default 10). `npm run bench -- <mode>` runs one phase alone: `streams` (live streams), `partner` (the
 * partner in-kind flow), `attestations` (attestation creation), `workflows` (workflows through the embedded Temporal
 * service), `chains` (seen and final latencies, scan throughput), `console` (the operator console over 100 000
 * workflows and a 10 000-event history), `hedging` (hedge latency, reserves computation time), `solana` (Solana
 * attestation creation beside EVM's, and settlement on the local ledger), `webhooks` (event → delivered latency, deliveries
 * per second to one endpoint).
 */
import { exitWithUsageOnHelp } from '../config/cli';
import { startTestDatabase } from '../harness/database';
import { tagProcessesStartedHere } from '../harness/reaper';
import { benchApi } from './api';
import { benchAttestations, formatAttestations } from './attestations';
import { benchChains, formatChains } from './chains';
import { benchConsole, formatConsole } from './console';
import { benchContract } from './contract';
import { benchDatabases } from './databases';
import { benchDomain } from './domain';
import { benchHedging, formatHedging } from './hedging';
import { formatResults, loadGenerator, type LoadResult } from './load';
import { benchPartner, formatPartner } from './partner';
import { benchSigning } from './signing';
import { benchSolana, formatSolana } from './solana';
import { benchStreams, formatStreams } from './streams';
import { benchWebhooks, formatWebhooks } from './webhooks';
import { benchWorkflowModes, formatWorkflowModes } from './workflows';

const write = (text: string) => process.stdout.write(`${text}\n`);

async function main(): Promise<void> {
  exitWithUsageOnHelp(`usage: npm run bench -- [streams|partner|attestations|workflows|chains|console|hedging|solana|webhooks]   every benchmark, or only one mode
  BENCH_SECONDS   seconds per load phase (default 10); DATABASE_URL: run on it (migrated, seeded, written to), else a throw-away PostgreSQL`);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);
  // What the benchmarks start (PostgreSQL, chains, servers, workers) is stopped should this run be killed.
  tagProcessesStartedHere();
  const temporary = process.env.DATABASE_URL ? undefined : await startTestDatabase();
  const serverUrl = process.env.DATABASE_URL ?? temporary!.url;
  const databases = await benchDatabases(serverUrl);
  try {
    if (process.argv.slice(2).includes('streams')) {
      for (const line of formatStreams(await databases.phase((url) => benchStreams(url, { seconds })))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('chains')) {
      for (const line of formatChains(await databases.phase((url) => benchChains(url)))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('console')) {
      for (const line of formatConsole(await databases.phase((url) => benchConsole(url)))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('partner')) {
      for (const line of formatPartner(await databases.phase((url) => benchPartner(url, { seconds })))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('hedging')) {
      for (const line of formatHedging(await databases.phase((url) => benchHedging(url)))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('solana')) {
      for (const line of formatSolana(await benchSolana((run) => databases.phase(run), seconds))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('webhooks')) {
      for (const line of formatWebhooks(await databases.phase((url) => benchWebhooks(url, { seconds })))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('workflows')) {
      for (const line of formatWorkflowModes(await benchWorkflowModes(serverUrl, { concurrency: 50 }))) write(line);
      return;
    }
    if (process.argv.slice(2).includes('attestations')) {
      for (const session of ['regular', 'offhours'] as const) {
        for (const line of formatAttestations(await databases.phase((url) => benchAttestations(url, session, seconds)))) write(line);
      }
      return;
    }
    const domain = benchDomain();
    write('Domain');
    write(`  price model: ${domain.priceEvaluationUs.toFixed(2)} µs per evaluation (portfolio ${domain.portfolioEvaluationUs.toFixed(2)} µs)`);
    write(`  session lookup: ${domain.sessionLookupNs.toFixed(0)} ns`);
    const signing = await benchSigning();
    write(`Attestation signing (EVM quote, ${signing.implementation} secp256k1)`);
    write(`  digest ${signing.digestUs.toFixed(1)} µs, digest + signature ${signing.signUs.toFixed(1)} µs (viem's account: ${signing.viemAccountUs.toFixed(1)} µs, the same bytes)`);
    const contract = benchContract();
    write('OpenAPI document');
    write(`  generated from the operations in ${contract.documentMs.toFixed(1)} ms`);
    write(`  checking an answer (CHECK_ANSWERS): ${contract.smallAnswerUs.toFixed(2)} µs for one price, ${contract.largeAnswerUs.toFixed(0)} µs for a day of minute candles`);

    write(`API, 50 connections each, load from ${loadGenerator}`);
    const api = await databases.phase((url) => benchApi(url, seconds));
    write(formatResults(api));
    const [bare, bareSame, latest, ohlc] = api as [LoadResult, LoadResult, LoadResult, LoadResult];
    write(`  latest prices / bare Koa throughput: ${(latest.requestsPerSecond / bare.requestsPerSecond).toFixed(2)} against the tiny object, ${(latest.requestsPerSecond / bareSame.requestsPerSecond).toFixed(2)} at equal payload (goal ≥ 0.90)`);
    write(`  OHLC 1min/1day p99: ${ohlc.p99Ms} ms (goal ≤ 25 ms)`);

    const floors: Partial<Record<'regular' | 'offhours', LoadResult>> = {};
    for (const session of ['regular', 'offhours'] as const) {
      const attestations = await databases.phase((url) => benchAttestations(url, session, seconds));
      for (const line of formatAttestations(attestations)) write(line);
      floors[session] = attestations.results[0];
    }
    write(`  off-hours floor / regular floor throughput: ${(floors.offhours!.requestsPerSecond / floors.regular!.requestsPerSecond).toFixed(2)} (goal ≥ 0.80)`);

    const workflows = await benchWorkflowModes(serverUrl, { concurrency: 50 });
    for (const line of formatWorkflowModes(workflows)) write(line);

    for (const line of formatChains(await databases.phase((url) => benchChains(url)))) write(line);

    for (const line of formatStreams(await databases.phase((url) => benchStreams(url, { seconds })))) write(line);

    for (const line of formatPartner(await databases.phase((url) => benchPartner(url, { seconds })))) write(line);

    for (const line of formatConsole(await databases.phase((url) => benchConsole(url)))) write(line);

    for (const line of formatHedging(await databases.phase((url) => benchHedging(url)))) write(line);

    for (const line of formatSolana(await benchSolana((run) => databases.phase(run), seconds))) write(line);

    for (const line of formatWebhooks(await databases.phase((url) => benchWebhooks(url, { seconds })))) write(line);
  } finally {
    await databases.drop();
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
