/**
 * Invariants 5 and 8 of issue 36, from the journal of answers (campaign/journal.ts) and the product's database:
 * 5. nothing acknowledged is lost: every 2xx the workload received is in the database as it was answered —
 *    attestations (id, chain, side, symbol, amounts, price, expiry, user address, the stored answer itself); the last
 *    answered operator pause or resume of the market, of each chain and of each asset; scheduled events (corporate
 *    actions) created and not deleted, deleted ones gone; partner mints the broker's record names an issuer request
 *    for; partner requests an operator rejected;
 * 8. no answer outside the contract: no 5xx but 503, every 503 with Retry-After, and a 503 only while a fault was in
 *    force (the entry's `faults`) or within `ANSWER_GRACE_MS` after a fault step or its heal (the schedule's), but
 *    for the capacity answers (`CAPACITY_503_CODES`: the Solana nonce pool exhausted), which need no fault.
 * Violations have the shape of campaign/invariants.ts, printed alike.
 */
import type { Queryable } from '../db/pool';
import { CHAIN_TABLE } from '../domain/chains';
import type { Violation } from './invariants';
import type { JournalEntry, ScheduledStep } from './model';

/**
 * How long after a fault step (or its heal) a 503 is still the product recovering, not a broken promise: a restarted
 * PostgreSQL or Temporal service is found again by the API's pool and client within their retry (a few seconds, the
 * Retry-After the API answers is 5 s), a killed process is restarted by the fault schedule; 30 s holds those with margin
 * on a loaded 2-core machine.
 */
export const ANSWER_GRACE_MS = 30_000;

/**
 * 503 codes that answer the product's capacity, not a part down, so they need no fault (they still need Retry-After):
 * every nonce account of the Solana pool held by an outstanding attestation is the workload's doing.
 */
export const CAPACITY_503_CODES: readonly string[] = ['NONCE_POOL_EXHAUSTED'];

export interface AnswerInvariantsParameters {
  journal: readonly JournalEntry[];
  /** The base URLs whose answers invariant 8 judges: the product's APIs and the brokerage sandbox it ships. */
  productApis: readonly string[];
  /** The run's schedule: its fault and heal steps extend the time a 503 is allowed by the grace. */
  schedule?: readonly ScheduledStep[];
  graceMs?: number;
  /** The instant the database is read at (epoch ms): asset pauses active then; default now. */
  now?: number;
}

const ok = (entry: JournalEntry): boolean => entry.status >= 200 && entry.status < 300;
/** No answer, or a 5xx: the request may or may not have taken effect. */
const uncertain = (entry: JournalEntry): boolean => entry.status === 0 || entry.status >= 500;
const pathOf = (entry: JournalEntry): string => entry.path.split('?')[0]!;
const field = (value: unknown, name: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined);
const text = (value: unknown): string | null => (value === undefined || value === null ? null : String(value));

/** The named chain of a request's `chainId` (default ethereum-1; an alias as the API takes it). */
function namedChain(chainId: unknown): string {
  if (chainId === undefined) return 'ethereum-1';
  for (const [name, entry] of Object.entries(CHAIN_TABLE)) {
    if (name === chainId || (entry as { aliases?: readonly string[] }).aliases?.includes(String(chainId))) return name;
  }
  return String(chainId);
}

/** The latest of the entries by answer, unless another overlaps it (two operators racing: the order is not known). */
function lastUnambiguous(entries: JournalEntry[]): JournalEntry | undefined {
  const sorted = [...entries].sort((a, b) => a.answeredMs - b.answeredMs);
  const last = sorted.at(-1);
  if (!last) return undefined;
  return sorted.slice(0, -1).some((other) => other.answeredMs > last.sentMs) ? undefined : last;
}

/** 5: every 2xx attestation stored as answered. */
async function attestationsKept(db: Queryable, journal: readonly JournalEntry[]): Promise<Violation[]> {
  const answered = journal
    .filter((entry) => ok(entry) && entry.method === 'POST' && pathOf(entry) === '/v1/attestations')
    .map((entry) => ({
      attestation_id: text(field(entry.body, 'attestationId')),
      chain: namedChain(field(entry.requestBody, 'chainId')),
      side: field(entry.body, 'side') === '0' ? 'buy' : 'sell',
      symbol: text(field(entry.body, 'symbol')),
      token_amount: text(field(entry.body, 'tokenAmount')),
      price: text(field(entry.body, 'price')),
      expiration: text(field(entry.body, 'expiration')),
      user_address: text(field(entry.requestBody, 'userAddress')),
      answer: entry.body,
      sent_ms: String(entry.sentMs),
      actor: entry.actor,
    }));
  if (answered.length === 0) return [];
  const { rows } = await db.query<Record<string, string>>(
    `SELECT j.attestation_id AS "attestationId", j.actor, j.sent_ms AS "sentMs", j.chain, j.side, j.symbol, j.token_amount AS "tokenAmount", j.price,
            j.expiration, coalesce(j.user_address, '') AS "userAddress",
            CASE WHEN a.attestation_id IS NULL THEN 'missing' ELSE
              concat_ws(' ', CASE WHEN a.chain <> j.chain THEN 'chain=' || a.chain END,
                             CASE WHEN a.side <> j.side THEN 'side=' || a.side END,
                             CASE WHEN a.symbol <> j.symbol THEN 'symbol=' || a.symbol END,
                             CASE WHEN trunc(a.token_amount * 1e18)::text <> j.token_amount THEN 'tokenAmount=' || a.token_amount END,
                             CASE WHEN trunc(a.price * 1e18)::text <> j.price THEN 'price=' || a.price END,
                             CASE WHEN (a.expires_at / 1000)::text <> j.expiration OR a.expires_at % 1000 <> 0 THEN 'expiresAt=' || a.expires_at END,
                             CASE WHEN a.user_address IS DISTINCT FROM j.user_address THEN 'userAddress=' || coalesce(a.user_address, 'none') END,
                             CASE WHEN a.response <> j.answer THEN 'response differs' END)
            END AS stored
       FROM jsonb_to_recordset($1::jsonb) AS j(attestation_id text, chain text, side text, symbol text, token_amount text, price text, expiration text,
                                                 user_address text, answer jsonb, sent_ms text, actor text)
       LEFT JOIN attestations a ON a.attestation_id = j.attestation_id::numeric`,
    [JSON.stringify(answered)],
  );
  return rows
    .filter((row) => row.stored !== '')
    .map(({ stored = '', ...records }): Violation =>
      stored === 'missing'
        ? { invariant: '5 answers kept', rule: 'an attestation answered 2xx is not in the database', records }
        : { invariant: '5 answers kept', rule: 'an attestation answered 2xx is stored other than answered', records: { ...records, stored } },
    );
}

/** 5: the last answered pause or resume of the market, each chain and each asset is the state stored. */
async function pausesKept(db: Queryable, journal: readonly JournalEntry[], now: number): Promise<Violation[]> {
  const violations: Violation[] = [];
  const controls = journal.filter((entry) => entry.method === 'POST' && /^\/v1\/status\/(market|chains\/[^/]+|assets\/[^/]+)\/(pause|resume)$/.test(pathOf(entry)));
  const byTarget = new Map<string, JournalEntry[]>();
  for (const entry of controls.filter(ok)) {
    const target = pathOf(entry).replace(/\/(pause|resume)$/, '');
    byTarget.set(target, [...(byTarget.get(target) ?? []), entry]);
  }
  const { rows: market } = await db.query<{ paused: boolean }>('SELECT paused FROM market_state');
  const { rows: chains } = await db.query<{ chain: string }>('SELECT chain FROM chain_pauses');
  const { rows: assets } = await db.query<{ symbol: string; eventId: string }>(
    `SELECT symbol, event_id AS "eventId" FROM asset_status_events
      WHERE code = 'ASSET_PAUSED' AND type = 'unscheduled' AND starts_at <= $1 AND (ends_at IS NULL OR ends_at > $1)`,
    [now],
  );
  for (const [target, entries] of byTarget) {
    const last = lastUnambiguous(entries);
    // A later control of the target with no answer (or a 5xx) may have taken effect: the state is not known.
    if (!last || controls.some((other) => uncertain(other) && other.answeredMs > last.sentMs && pathOf(other).startsWith(`${target}/`))) continue;
    const paused = pathOf(last).endsWith('/pause');
    const [, kind, name] = /^\/v1\/status\/(market|chains|assets)\/?(.*)$/.exec(target)!;
    const stored =
      kind === 'market'
        ? market[0]?.paused === true
        : kind === 'chains'
          ? chains.some((row) => row.chain === name)
          : paused
            ? assets.some((row) => row.eventId === field(last.body, 'eventId'))
            : assets.some((row) => row.symbol === name);
    if (stored !== paused) {
      violations.push({
        invariant: '5 answers kept',
        rule: `the last ${paused ? 'pause' : 'resume'} answered 2xx is not the state stored`,
        records: { target: target.replace('/v1/status/', ''), answeredMs: String(last.answeredMs), status: String(last.status), stored: stored ? 'paused' : 'running' },
      });
    }
  }
  return violations;
}

/** 5: scheduled events created are stored as answered unless deleted; deleted ones are gone. */
async function eventsKept(db: Queryable, journal: readonly JournalEntry[]): Promise<Violation[]> {
  const deletes = journal.filter((entry) => entry.method === 'DELETE' && pathOf(entry).startsWith('/v1/status/assets/events/'));
  const deleted = new Set(deletes.filter(ok).map((entry) => pathOf(entry).split('/').at(-1)!));
  // A delete with no answer (or a 5xx) may have removed the event: it is not judged.
  const maybeDeleted = new Set(deletes.filter(uncertain).map((entry) => pathOf(entry).split('/').at(-1)!));
  const created = journal
    .filter((entry) => ok(entry) && entry.method === 'POST' && pathOf(entry) === '/v1/status/assets/events')
    .map((entry) => ({
      event_id: text(field(entry.body, 'eventId')),
      symbol: text(field(entry.requestBody, 'symbol')),
      code: text(field(entry.requestBody, 'code')),
      reason: text(field(entry.requestBody, 'reason')),
      starts_at: text(field(entry.requestBody, 'start')),
      ends_at: text(field(entry.requestBody, 'end')),
      update_shares_multiplier: field(entry.requestBody, 'updateSharesMultiplier') === true,
    }));
  const events = [...created, ...[...deleted].filter((id) => !created.some((event) => event.event_id === id)).map((id) => ({ event_id: id }))];
  if (events.length === 0) return [];
  const { rows } = await db.query<{ eventId: string; symbol: string; stored: string }>(
    `SELECT j.event_id AS "eventId", coalesce(j.symbol, '') AS symbol,
            CASE WHEN e.event_id IS NULL THEN 'missing' ELSE
              concat_ws(' ', CASE WHEN e.symbol <> j.symbol THEN 'symbol=' || e.symbol END, CASE WHEN e.code <> j.code THEN 'code=' || e.code END,
                             CASE WHEN e.reason <> j.reason THEN 'reason=' || e.reason END, CASE WHEN e.starts_at::text <> j.starts_at THEN 'start=' || e.starts_at END,
                             CASE WHEN e.ends_at::text IS DISTINCT FROM j.ends_at THEN 'end=' || coalesce(e.ends_at::text, 'none') END,
                             CASE WHEN e.update_shares_multiplier <> j.update_shares_multiplier THEN 'updateSharesMultiplier=' || e.update_shares_multiplier END)
            END AS stored
       FROM jsonb_to_recordset($1::jsonb) AS j(event_id text, symbol text, code text, reason text, starts_at text, ends_at text, update_shares_multiplier boolean)
       LEFT JOIN asset_status_events e USING (event_id)`,
    [JSON.stringify(events)],
  );
  const violations: Violation[] = [];
  for (const row of rows) {
    if (maybeDeleted.has(row.eventId) && !deleted.has(row.eventId)) continue;
    if (deleted.has(row.eventId)) {
      if (row.stored !== 'missing') violations.push({ invariant: '5 answers kept', rule: 'a scheduled event deleted 2xx is still stored', records: { eventId: row.eventId } });
    } else if (row.stored !== '') {
      violations.push({
        invariant: '5 answers kept',
        rule: row.stored === 'missing' ? 'a scheduled event answered 2xx is not in the database' : 'a scheduled event answered 2xx is stored other than answered',
        records: { eventId: row.eventId, symbol: row.symbol, ...(row.stored === 'missing' ? {} : { stored: row.stored }) },
      });
    }
  }
  return violations;
}

/** The named chain of a partner network (`ethereum`, `binance`). */
function chainOfNetwork(network: unknown): string {
  return Object.entries(CHAIN_TABLE).find(([, entry]) => (entry as { partnerNetwork?: string }).partnerNetwork === network)?.[0] ?? String(network);
}

/** 5: a partner mint the broker's record names an issuer request for is that request, as asked; a rejection answered 2xx is stored. */
async function partnerRequestsKept(db: Queryable, journal: readonly JournalEntry[]): Promise<Violation[]> {
  const mints = new Map<string, Record<string, string | null>>();
  for (const entry of journal) {
    const issuerRequestId = field(entry.body, 'issuer_request_id');
    if (!ok(entry) || entry.method !== 'GET' || !/\/tokenization\/requests\/[^/]+$/.test(pathOf(entry)) || typeof issuerRequestId !== 'string') continue;
    mints.set(issuerRequestId, {
      issuer_request_id: issuerRequestId,
      tokenization_request_id: text(field(entry.body, 'tokenization_request_id')),
      chain: chainOfNetwork(field(entry.body, 'network')),
      underlying_symbol: text(field(entry.body, 'underlying_symbol')),
      qty: text(field(entry.body, 'qty')),
      wallet: text(field(entry.body, 'wallet_address'))?.toLowerCase() ?? null,
    });
  }
  const rejected = journal.filter((entry) => ok(entry) && entry.method === 'POST' && /^\/v1\/tokenization\/requests\/[^/]+\/reject$/.test(pathOf(entry))).map((entry) => pathOf(entry).split('/')[4]!);
  const violations: Violation[] = [];
  if (mints.size > 0) {
    const { rows } = await db.query<{ issuerRequestId: string; tokenizationRequestId: string; stored: string }>(
      `SELECT j.issuer_request_id AS "issuerRequestId", coalesce(j.tokenization_request_id, '') AS "tokenizationRequestId",
              CASE WHEN p.issuer_request_id IS NULL THEN 'missing' ELSE
                concat_ws(' ', CASE WHEN p.tokenization_request_id IS DISTINCT FROM j.tokenization_request_id THEN 'tokenizationRequestId=' || coalesce(p.tokenization_request_id, 'none') END,
                               CASE WHEN p.chain <> j.chain THEN 'chain=' || p.chain END,
                               CASE WHEN p.underlying_symbol <> j.underlying_symbol THEN 'underlying=' || p.underlying_symbol END,
                               CASE WHEN p.qty IS DISTINCT FROM j.qty::numeric THEN 'qty=' || coalesce(p.qty::text, 'none') END,
                               CASE WHEN p.wallet <> j.wallet THEN 'wallet=' || p.wallet END)
              END AS stored
         FROM jsonb_to_recordset($1::jsonb) AS j(issuer_request_id text, tokenization_request_id text, chain text, underlying_symbol text, qty text, wallet text)
         LEFT JOIN partner_requests p USING (issuer_request_id)`,
      [JSON.stringify([...mints.values()])],
    );
    for (const row of rows.filter((row) => row.stored !== '')) {
      violations.push({ invariant: '5 answers kept', rule: 'a partner mint the broker was answered for is not the issuer request stored', records: { ...row } });
    }
  }
  if (rejected.length > 0) {
    const { rows } = await db.query<{ issuerRequestId: string; state: string }>(
      `SELECT issuer_request_id AS "issuerRequestId", state FROM partner_requests WHERE issuer_request_id = ANY($1::text[])`,
      [rejected],
    );
    for (const issuerRequestId of new Set(rejected)) {
      const state = rows.find((row) => row.issuerRequestId === issuerRequestId)?.state;
      if (state !== 'rejected') violations.push({ invariant: '5 answers kept', rule: 'a partner request rejected 2xx is not stored rejected', records: { issuerRequestId, stored: state ?? 'missing' } });
    }
  }
  return violations;
}

/** 8: no 5xx but 503, every 503 with Retry-After, a 503 only during or shortly after a fault. */
export function answersInContract(parameters: AnswerInvariantsParameters): Violation[] {
  const grace = parameters.graceMs ?? ANSWER_GRACE_MS;
  const faultSteps = (parameters.schedule ?? []).filter((step) => step.kind !== 'operation').map((step) => step.atMs);
  const violations: Violation[] = [];
  for (const entry of parameters.journal) {
    if (!parameters.productApis.includes(entry.api) || entry.status < 500) continue;
    const records = {
      actor: entry.actor,
      request: `${entry.method} ${entry.path}`,
      status: String(entry.status),
      sentMs: String(entry.sentMs),
      code: text(field(entry.body, 'code')) ?? '',
      faults: entry.faults.join(',') || 'none',
    };
    if (entry.status !== 503) {
      violations.push({ invariant: '8 answers in contract', rule: 'a 5xx other than 503', records });
      continue;
    }
    if (!entry.retryAfter) violations.push({ invariant: '8 answers in contract', rule: 'a 503 without Retry-After', records });
    const faultNear = CAPACITY_503_CODES.includes(records.code) || entry.faults.length > 0 || faultSteps.some((atMs) => atMs <= entry.answeredMs && atMs >= entry.sentMs - grace);
    if (!faultNear) violations.push({ invariant: '8 answers in contract', rule: `a 503 with no fault in force nor within ${grace} ms before`, records });
  }
  return violations;
}

/** Invariants 5 and 8 of a run: the journal against the database as it is now (read it once the product settled). */
export async function checkAnswers(db: Queryable, parameters: AnswerInvariantsParameters): Promise<Violation[]> {
  const now = parameters.now ?? Date.now();
  return [
    ...(await attestationsKept(db, parameters.journal)),
    ...(await pausesKept(db, parameters.journal, now)),
    ...(await eventsKept(db, parameters.journal)),
    ...(await partnerRequestsKept(db, parameters.journal)),
    ...answersInContract(parameters),
  ];
}
