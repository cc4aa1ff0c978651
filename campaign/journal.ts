/**
 * The journal of answers (issue 36, invariants 5 and 8): every request the campaign's workload makes, with the answer
 * it received as received — status (0 when none came), Retry-After, body — and the faults in force while it was in
 * flight, appended to a file as JSON lines. `journaledFetch` is the one way the workload calls the product: it never
 * throws on an HTTP error nor on a failed connection, it records them.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JournalEntry } from './model';

export interface JournalParameters {
  /** The JSON-lines file; created (emptied) at once, appended to on every entry. */
  file: string;
  /** The instant the run began: entries' times are ms since then. */
  startedAt: number;
  /** The names of the faults in force now (the runner's schedule); empty when none. */
  activeFaults(): string[];
}

export interface Journal {
  readonly file: string;
  readonly startedAt: number;
  /** ms since the run began. */
  now(): number;
  activeFaults(): string[];
  record(entry: JournalEntry): void;
  entries(): readonly JournalEntry[];
}

export function createJournal(parameters: JournalParameters): Journal {
  mkdirSync(path.dirname(parameters.file), { recursive: true });
  writeFileSync(parameters.file, '');
  const entries: JournalEntry[] = [];
  return {
    file: parameters.file,
    startedAt: parameters.startedAt,
    now: () => Date.now() - parameters.startedAt,
    activeFaults: parameters.activeFaults,
    record(entry) {
      entries.push(entry);
      appendFileSync(parameters.file, `${JSON.stringify(entry)}\n`);
    },
    entries: () => entries,
  };
}

/** A journal file read back (a run checked after the fact). */
export function readJournal(file: string): JournalEntry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JournalEntry);
}

export interface JournaledRequest {
  actor: string;
  /** The base URL (the API's `http://host:port`, or the brokerage sandbox's): the entry's `api`. */
  api: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path with its query, e.g. `/v1/attestations`. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Gives up on the answer after this long (status 0); default 30 s. */
  timeoutMs?: number;
}

export interface JournaledAnswer {
  status: number;
  body: unknown;
  retryAfter?: string;
}

/** Faults in force at the start or the end of the request, each once, in the order first seen. */
function faultsDuring(before: string[], after: string[]): string[] {
  return [...new Set([...before, ...after])];
}

/** Sends a request, records its answer in the journal (status 0 for none), and returns it; never throws. */
export async function journaledFetch(journal: Journal, request: JournaledRequest): Promise<JournaledAnswer> {
  const sentMs = journal.now();
  const faultsAtSend = journal.activeFaults();
  let answer: JournaledAnswer;
  try {
    const response = await fetch(`${request.api}${request.path}`, {
      method: request.method,
      headers: { ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(request.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    answer = { status: response.status, body, retryAfter: response.headers.get('retry-after') ?? undefined };
  } catch (error) {
    answer = { status: 0, body: { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) } };
  }
  journal.record({
    sentMs,
    answeredMs: journal.now(),
    actor: request.actor,
    api: request.api,
    method: request.method,
    path: request.path,
    ...(request.body === undefined ? {} : { requestBody: request.body }),
    status: answer.status,
    ...(answer.retryAfter === undefined ? {} : { retryAfter: answer.retryAfter }),
    ...(answer.body === undefined ? {} : { body: answer.body }),
    faults: faultsDuring(faultsAtSend, journal.activeFaults()),
  });
  return answer;
}
