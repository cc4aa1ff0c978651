/**
 * Process configuration: every environment variable the product reads, in one zod schema. Each
 * process parses the slice it uses (`loadConfig(['DATABASE_URL', …])`), or all of it (`npm start`);
 * a bad value stops the process with the variable's name. The README's configuration table mirrors
 * this schema.
 */
import path from 'node:path';
import { z } from 'zod';
import { parseFinality } from '../chains/finality';
import {
  chainVariables,
  defaultAnvilPort,
  EVM_CHAINS,
  type ChainAnvilPortVariable,
  type ChainFinalityVariable,
  type ChainRpcUrlVariable,
} from '../domain/chains';
import { evmPrivateKeySchema, signerKeyVariables } from '../signing/key-schemas';
import { ISSUER_TASK_QUEUE } from '../temporal/task-queues';

const positiveInt = z.coerce.number().int().positive();
const port = z.coerce.number().int().min(1).max(65_535);
const decimalString = z.string().regex(/^\d{1,15}(\.\d{1,18})?$/, 'must be a non-negative decimal');
/** A chain's finality rule: `finalized` (the chain's own tag), `safe`, or a depth in blocks below the head. */
const finality = z
  .string()
  .regex(/^(finalized|safe|\d{1,4})$/, 'must be finalized, safe or a block depth')
  .default('finalized')
  .transform(parseFinality);
const rpcUrl = () => z.url().optional();
const DURATION_UNITS_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A duration such as `0`, `200ms`, `5s`, `30m`, `2h` or `1d`, in milliseconds. */
const durationMs = z
  .string()
  .trim()
  .regex(/^\d{1,9}(ms|s|m|h|d)?$/, 'must be a duration: a number with ms, s, m, h or d (milliseconds without a unit)')
  .transform((text) => {
    const [, amount, unit] = /^(\d+)(ms|s|m|h|d)?$/.exec(text)!;
    return Number(amount) * DURATION_UNITS_MS[(unit ?? 'ms') as keyof typeof DURATION_UNITS_MS];
  });
const commaList = z
  .string()
  .default('')
  .transform((list) => list.split(',').map((entry) => entry.trim()).filter(Boolean));
const anvilPort = (defaultPort: number) => port.default(defaultPort);

/**
 * The variables of each EVM chain, named by its entry in domain/chains.ts:
 * - RPC_URL_<CHAIN>: its JSON-RPC endpoint. Unset: `npm start` runs a local anvil chain for it,
 *   its state kept under DATA_DIR/chains, and deploys the contracts there once;
 * - ANVIL_PORT_<CHAIN>: the port of that local anvil chain;
 * - CHAIN_FINALITY_<CHAIN>: when a block is final: nothing irreversible (an attestation `executed`, shares delivered,
 *   the broker's callback) happens before. `finalized` (default) and `safe` are the chain's block tags; a number is a
 *   depth below the head. See the README's "On chain".
 */
const chainVariableSchemas = Object.fromEntries(
  EVM_CHAINS.flatMap((chain) => {
    const variables = chainVariables(chain);
    return [
      [variables.rpcUrl, rpcUrl()],
      [variables.anvilPort, anvilPort(defaultAnvilPort(chain))],
      [variables.finality, finality],
    ];
  }),
) as { [V in ChainRpcUrlVariable]: ReturnType<typeof rpcUrl> } & { [V in ChainAnvilPortVariable]: ReturnType<typeof anvilPort> } & {
  [V in ChainFinalityVariable]: typeof finality;
};

export const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65_535).default(8080),
  /** Base URL that clients reach; error documentation links point under it. Unset: http://HOST:PORT (publicBaseUrl). */
  PUBLIC_BASE_URL: z.url().optional(),
  /**
   * Client addresses of the proxies in front of the API (IPs or CIDR ranges, comma-separated): only a request from
   * one of them has its client address taken from X-Forwarded-For (the failed-authentication throttle counts by it).
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((list) => list.split(',').map((entry) => entry.trim()).filter(Boolean))
    .pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]))),
  /** Port of the Prometheus metrics (`GET /metrics`) each process serves on HOST; 0 picks a free one. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  /**
   * `true`: `npm start` makes (and prints) development read/write/admin keys even on DATABASE_URL — refused when that
   * database holds keys that are not development keys. On the embedded PostgreSQL it always does.
   */
  DEVELOPMENT_KEYS: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /** Unset: start an embedded PostgreSQL with its data under DATA_DIR/postgres. */
  DATABASE_URL: z.string().optional(),
  /** Where the embedded parts keep their state (PostgreSQL, signer keys, stack.json); resolved to an absolute path. */
  DATA_DIR: z.string().default('.data').transform((directory) => path.resolve(directory)),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65_535).default(54_329),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** `pretty` for a terminal, `json` for log shippers. Default: pretty when stdout is a TTY. */
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  /** `simulated`: the seeded feed (with backfill); `external`: prices only arrive through the ingestion endpoint. */
  PRICE_SOURCE: z.enum(['simulated', 'external']).default('simulated'),
  PRICE_TICK_MS: positiveInt.default(1_000),
  SIMULATION_SEED: z.coerce.number().int().nonnegative().default(20_250_903),
  RATE_LIMIT_PER_SECOND: positiveInt.default(50),
  RATE_LIMIT_BURST: positiveInt.default(100),
  BODY_LIMIT_BYTES: positiveInt.default(64 * 1024),
  /** Seconds that an API key lookup may be served from memory (revocations in other processes apply within this). */
  API_KEY_CACHE_SECONDS: z.coerce.number().min(0).default(5),
  /** Failed authentications a client address may make per minute before it gets 429 RATE_LIMITED. */
  AUTH_FAILURES_PER_MINUTE: positiveInt.default(10),
  /** How long an operator console session lasts after sign-in. */
  CONSOLE_SESSION_MINUTES: positiveInt.default(480),
  /**
   * Whether each answer is checked against the OpenAPI document (GET /v1/openapi.json): `log` logs a mismatch,
   * `fail` also turns the answer into 500 INTERNAL_ERROR naming it (what the test suite runs with).
   */
  CHECK_ANSWERS: z.enum(['off', 'log', 'fail']).default('off'),
  /** Port of the gRPC live streams (ondo.gm.backend.v1.BackendService, and MarketDataStream) served on HOST beside the HTTP API; 0 picks a free one. */
  GRPC_PORT: z.coerce.number().int().min(0).max(65_535).default(9090),
  /** How often an idle Server-Sent Events stream gets a heartbeat comment. */
  STREAM_HEARTBEAT_MS: positiveInt.default(15_000),
  /** Live streams (SSE and gRPC together) one API key may hold open in one API process. */
  STREAMS_PER_KEY: positiveInt.default(100),
  /** How long a gRPC BackendService stream gathers updates into one frame. */
  STREAM_FRAME_WINDOW_MS: positiveInt.default(50),
  /** A latest price older than this is not quoted (503 PRICE_UNAVAILABLE). */
  QUOTE_MAX_PRICE_AGE_MS: positiveInt.default(15_000),
  /** Largest order (USD notional) while an asset is ASSET_LIMITED. */
  LIMITED_MAX_ORDER_NOTIONAL: decimalString.default('10000'),
  /** Caps on the issuer's notional attested in an off-hours session, over all assets and per asset. */
  OFFHOURS_GLOBAL_EXPOSURE_LIMIT: decimalString.default('1000000'),
  OFFHOURS_ASSET_EXPOSURE_LIMIT: decimalString.default('250000'),
  /** RPC_URL_<CHAIN>, ANVIL_PORT_<CHAIN>, CHAIN_FINALITY_<CHAIN> of each EVM chain (above). */
  ...chainVariableSchemas,
  /**
   * The issuer's chain key: deploys the contracts, registers wallets, submits partner mints. Required with RPC
   * URLs; unset on local chains: anvil's first development account.
   */
  CHAIN_ISSUER_PRIVATE_KEY: z.preprocess((value) => (value === '' ? undefined : value), evmPrivateKeySchema.optional()),
  /**
   * Solana's JSON-RPC endpoint (a cluster). Unset: `npm start` runs the local ledger (solana-ledger/) on
   * SOLANA_RPC_PORT, its state under DATA_DIR/solana, and creates the mints, treasury, nonce pool and wallets there.
   */
  SOLANA_RPC_URL: rpcUrl(),
  SOLANA_RPC_PORT: port.default(8899),
  /**
   * The issuer's pool of durable nonce accounts (one per outstanding Solana attestation): the accounts it holds at
   * least (npm start's set-up, and a worker's first refill on a cluster, make them); with fewer than LOW_WATER free
   * the worker grows it until twice LOW_WATER are free, never past MAX.
   */
  SOLANA_NONCE_POOL_SIZE: positiveInt.max(256).default(8),
  SOLANA_NONCE_POOL_LOW_WATER: z.coerce.number().int().min(0).max(256).default(2),
  SOLANA_NONCE_POOL_MAX: positiveInt.max(1_024).default(64),
  /** How often a caught-up chain watcher polls for new blocks. */
  CHAIN_POLL_INTERVAL_MS: positiveInt.default(1_000),
  /** Largest block range one eth_getLogs call asks for. */
  CHAIN_SCAN_BLOCK_RANGE: positiveInt.max(100_000).default(2_000),
  /** How long after expiry a late execution report (executed before expiry) is still accepted. */
  ATTESTATION_SETTLEMENT_GRACE_MS: positiveInt.default(600_000),
  /**
   * The brokerage partner of the in-kind flow: its API, the issuer's own account id there (callbacks and reads go
   * under it) and the issuer's basic-auth credential. Unset: `npm start` runs the brokerage sandbox (broker/) and
   * fills them in; a standalone worker without them retries its broker calls until one that has them runs.
   */
  BROKER_URL: z.url().optional(),
  BROKER_ACCOUNT_ID: z.string().min(1).optional(),
  BROKER_KEY: z.string().min(1).optional(),
  BROKER_SECRET: z.string().min(1).optional(),
  /** How long a hedging workflow collects final executions of one underlying before netting them into orders. */
  HEDGE_WINDOW_MS: positiveInt.default(2_000),
  /** How often the reserves workflow recomputes the reserves (it also does after each hedge fill). */
  RESERVES_INTERVAL_MS: positiveInt.default(60_000),
  /** An asset is short when the shares backing its tokens fall below what they require by more than this (basis points). */
  RESERVES_TOLERANCE_BPS: z.coerce.number().min(0).max(10_000).default(1),
  /** Port of the brokerage sandbox `npm start` runs when BROKER_URL is unset. */
  BROKER_SANDBOX_PORT: port.default(8090),
  /**
   * `1`: this start tops the sandbox's development participant back up to its seeded positions. Otherwise they are
   * seeded on a fresh data directory only and persist across restarts, like an account at a real broker.
   */
  BROKER_SANDBOX_RESEED: z.enum(['0', '1']).default('0').transform((value) => value === '1'),
  /**
   * The master keys that seal webhook signing secrets in the database (AES-256-GCM), `id:<base64 of 32 bytes>`,
   * comma-separated: the first seals, any of them opens, so a new key goes first and an old one is dropped once no
   * secret is sealed under it. Unset: the webhook routes answer 503 WEBHOOKS_UNAVAILABLE and the worker delivers
   * nothing; `npm start` generates one under DATA_DIR.
   */
  WEBHOOK_SECRET_KEYS: z.string().trim().optional(),
  /**
   * Networks (IPs or CIDR ranges, comma-separated) a webhook may be delivered to although they are private, loopback
   * or link-local. Empty (the default): webhooks go to public addresses only, checked at registration and again at
   * each delivery (no request to an internal service). `npm start` allows the loopback networks.
   */
  WEBHOOK_ALLOWED_NETWORKS: commaList.pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6()]))),
  /** `true`: webhook URLs may be plain `http` (a local receiver); otherwise `https` only. */
  WEBHOOK_ALLOW_HTTP: z.enum(['true', 'false']).default('false').transform((value) => value === 'true'),
  /**
   * The wait before each attempt of a webhook delivery (the first is `0`), comma-separated durations: after the last
   * the delivery fails (and stays replayable). Default: the Standard Webhooks example, 10 attempts over about 3 days.
   */
  WEBHOOK_RETRY_SCHEDULE: commaList
    .transform((list) => (list.length > 0 ? list : ['0', '5s', '5m', '30m', '2h', '5h', '10h', '14h', '20h', '24h']))
    .pipe(z.array(durationMs).min(1).max(20)),
  /** An endpoint failing (no delivery succeeding) for this long is disabled, with the reason its owner sees. */
  WEBHOOK_DISABLE_AFTER_MS: positiveInt.default(5 * 86_400_000),
  /** How long a webhook delivery waits for the receiver's answer. */
  WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000).default(15_000),
  /** Deliveries to one endpoint in flight at once (never two of the same resource). */
  WEBHOOK_CONCURRENCY_PER_ENDPOINT: positiveInt.max(256).default(16),
  /** Webhook endpoints one account may register. */
  WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: positiveInt.max(1_000).default(20),
  /** How long delivered and failed webhook deliveries, their attempts and events are kept. */
  WEBHOOK_RETENTION_DAYS: positiveInt.max(3_650).default(30),
  /** Prebuilt workflow bundle (scripts/build-workflow-bundle.ts) for production; unset bundles from source at start. */
  WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
  /**
   * Threads the worker runs workflow code on. The SDK's default is one; on two cores a second one measured 14 % more
   * workflows per second (`npm run bench`); more than the machine's cores gains nothing.
   */
  WORKFLOW_THREADS: positiveInt.max(64).default(2),
  /** The Temporal cluster to use; unset: a `temporal` CLI dev server if one is on PATH, else the embedded service. */
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  /** Port the embedded Temporal service listens on (127.0.0.1), Temporal's own default; 0 picks a free one. */
  TEMPORAL_PORT: port.default(7233),
  /** The task queue the worker polls and the API starts workflows on. */
  TEMPORAL_TASK_QUEUE: z.string().min(1).default(ISSUER_TASK_QUEUE),
  /** Attestation signer keys; unset or empty: development keys generated once under DATA_DIR (signing/keys.ts). */
  ...signerKeyVariables,
});

export type ConfigVariable = keyof typeof configSchema.shape;
type ParsedConfig = z.infer<typeof configSchema>;
export type Config = ParsedConfig;

/** Parses the variables `only` names (default: all of them); throws with every invalid variable named. */
export function loadConfig(): Config;
export function loadConfig<K extends ConfigVariable>(only: readonly K[], env?: NodeJS.ProcessEnv): Pick<Config, K>;
export function loadConfig(only?: readonly ConfigVariable[], env: NodeJS.ProcessEnv = process.env): Partial<Config> {
  const schema = only ? configSchema.pick(Object.fromEntries(only.map((name) => [name, true])) as Record<ConfigVariable, true>) : configSchema;
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data as Partial<Config>;
}

/** The base URL clients reach: PUBLIC_BASE_URL, else the address the API listens on. */
export function publicBaseUrl(config: Pick<Config, 'PUBLIC_BASE_URL' | 'HOST' | 'PORT'>): string {
  return (config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/$/, '');
}
