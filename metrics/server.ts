/**
 * The metrics endpoint of a process: Prometheus text at `GET /metrics` on HOST:METRICS_PORT — the metrics code counts
 * (prom-client's default registry, metrics.ts), what the process reads when scraped (process-metrics.ts), and the
 * Temporal SDK's own (`temporal_…`: its runtime's Prometheus exporter on a local port, read and passed on), in one
 * answer. Anything else is 404.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { register, type Registry } from 'prom-client';
import type { Logger } from '../config/logger';

export interface StartMetricsServerParameters {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** This process's own readings (createProcessMetrics). */
  registry: Registry;
  /** Where the Temporal SDK runtime's exporter answers (`http://127.0.0.1:N/metrics`), in a worker process. */
  temporalMetricsUrl?: () => string | undefined;
  logger: Logger;
}

/** A part as start/parts.ts stops it. */
export interface RunningMetricsServer {
  name: string;
  deadlineMs: number;
  /** e.g. `http://127.0.0.1:9464/metrics` */
  url: string;
  stop(): Promise<void>;
}

/** The SDK exporter's text, or nothing when it does not answer within a second (its series are left out). */
async function temporalMetrics(url: string | undefined): Promise<string> {
  if (!url) return '';
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    return response.ok ? await response.text() : '';
  } catch {
    return '';
  }
}

export async function startMetricsServer(parameters: StartMetricsServerParameters): Promise<RunningMetricsServer> {
  const { registry, logger } = parameters;
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at GET /metrics\n');
      return;
    }
    void Promise.all([register.metrics(), registry.metrics(), temporalMetrics(parameters.temporalMetricsUrl?.())])
      .then((texts) => response.writeHead(200, { 'content-type': register.contentType }).end(texts.filter(Boolean).join('\n')))
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'metrics scrape failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(parameters.port, parameters.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${parameters.host.includes(':') ? `[${parameters.host}]` : parameters.host}:${port}/metrics`;
  logger.info({ url }, 'metrics listening');
  return {
    name: 'metrics',
    deadlineMs: 5_000,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
