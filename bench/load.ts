/**
 * HTTP load for the benchmarks: wrk (Debian package, native, its own process) when installed,
 * else autocannon (in this process, so it saturates first). Requests cycle through header sets,
 * so one run can spread its load over many API keys.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

export interface LoadSpec {
  name: string;
  url: string;
  seconds: number;
  connections: number;
  method?: 'GET' | 'POST';
  body?: string;
  /** Requests cycle through these; a single set sends the same headers every time. */
  headerSets: Record<string, string>[];
}

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

export const loadGenerator = hasWrk() ? 'wrk' : 'autocannon';

function luaString(value: string): string {
  return JSON.stringify(value);
}

function wrkScript(spec: LoadSpec): string {
  const sets = spec.headerSets
    .map((headers) => `{${Object.entries(headers).map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`).join(',')}}`)
    .join(',\n');
  return `local sets = {${sets}}
local i = 0
request = function()
  i = (i % #sets) + 1
  return wrk.format(${luaString(spec.method ?? 'GET')}, nil, sets[i], ${spec.body === undefined ? 'nil' : luaString(spec.body)})
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %.3f %.3f %d\\n", summary.requests, summary.duration, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, e.status + e.timeout + e.connect + e.read + e.write))
end
`;
}

function loadWithWrk(spec: LoadSpec): LoadResult {
  const script = path.join(mkdtempSync(path.join(tmpdir(), 'bench-wrk-')), 'load.lua');
  writeFileSync(script, wrkScript(spec));
  const args = ['-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '-s', script, spec.url];
  const output = spawnSync('wrk', args, { encoding: 'utf8' }).stdout;
  // The script's done() prints: requests, duration (µs), p50 and p99 (ms), errors (non-2xx/3xx and socket).
  const fields = /RESULT (\d+) (\d+) ([\d.]+) ([\d.]+) (\d+)/.exec(output);
  if (!fields) throw new Error(`wrk printed no result for ${spec.name}:\n${output}`);
  const [, requests, durationUs, p50, p99, errors] = fields.map(Number) as number[];
  return {
    name: spec.name,
    requestsPerSecond: Math.round(requests! / (durationUs! / 1e6)),
    p50Ms: p50!,
    p99Ms: p99!,
    errors: errors!,
  };
}

async function loadWithAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    requests: spec.headerSets.map((headers) => ({ method: spec.method ?? 'GET', headers, body: spec.body })),
  });
  return {
    name: spec.name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

export async function load(spec: LoadSpec): Promise<LoadResult> {
  return loadGenerator === 'wrk' ? loadWithWrk(spec) : loadWithAutocannon(spec);
}

/**
 * Open-loop load: `rate` requests per second on a fixed schedule, whatever the answers' pace (so a slow answer
 * delays none of the requests after it). Latency counts from each request's scheduled time, not from when a
 * socket was free, so a stall shows in the percentiles instead of hiding in fewer requests.
 */
export async function loadAtRate(spec: Omit<LoadSpec, 'connections'> & { rate: number }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(spec.url);
  const total = Math.round(spec.rate * spec.seconds);
  const latencies: number[] = [];
  let errors = 0;
  const send = (index: number, scheduledAt: number) =>
    new Promise<void>((resolve) => {
      const request = http.request(
        { agent, host: target.hostname, port: target.port, path: target.pathname + target.search, method: spec.method ?? 'GET', headers: spec.headerSets[index % spec.headerSets.length] },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode! >= 400) errors += 1;
            latencies.push(performance.now() - scheduledAt);
            resolve();
          });
        },
      );
      request.on('error', () => {
        errors += 1;
        resolve();
      });
      request.end(spec.body);
    });
  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const scheduledAt = started + (index * 1000) / spec.rate;
    const wait = scheduledAt - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sent.push(send(index, scheduledAt));
  }
  await Promise.all(sent);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]! * 1000) / 1000;
  return { name: spec.name, requestsPerSecond: Math.round(latencies.length / elapsed), p50Ms: at(0.5), p99Ms: at(0.99), errors };
}

export function formatResults(results: LoadResult[]): string {
  return results
    .map((r) => `  ${r.name.padEnd(48)} ${String(r.requestsPerSecond).padStart(8)} req/s   p50 ${String(r.p50Ms).padStart(5)} ms   p99 ${String(r.p99Ms).padStart(6)} ms   errors ${r.errors}`)
    .join('\n');
}
