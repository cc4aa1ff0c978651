/**
 * What the campaign's parts share: the product as the workload sees it (a stack.json and the API URLs), the fault
 * handles the stack gives the fault schedule, the schedule's entries, and the journal of every answer the workload
 * received (invariants 5 and 8 read it). Types only.
 */
import type { StackFile } from '../start/stack-file';

/** The product as a client sees it: `.data/stack.json`'s shape (api, keys, account, chains, wallets, solanaWallets,
 * broker, issuer, database) and every API process's base URL (`http://127.0.0.1:port`, no `/v1`). */
export interface CampaignTarget {
  stack: StackFile;
  apiUrls: string[];
}

/** One entry of the schedule: when (ms since the run began), what, with which parameters; printed and stored. */
export interface ScheduledStep {
  atMs: number;
  kind: 'operation' | 'fault' | 'heal';
  name: string;
  detail: Record<string, unknown>;
}

/** One answer the workload received, as received. */
export interface JournalEntry {
  /** ms since the run began, when the request was sent, and when its answer (or failure) came. */
  sentMs: number;
  answeredMs: number;
  actor: string;
  api: string;
  method: string;
  path: string;
  requestBody?: unknown;
  /** 0: no HTTP answer (connection refused or dropped, timeout). */
  status: number;
  retryAfter?: string;
  body?: unknown;
  /** The faults in force while it was in flight (their names), empty when none. */
  faults: string[];
}

/** A product process the faults may kill and restart. */
export interface ProductProcess {
  name: string;
  role: 'api' | 'worker' | 'feed' | 'temporal';
  /** SIGKILL (a crash, mid-whatever); resolves once exited. */
  kill(): Promise<void>;
  /** Starts it again with the same environment and ports; resolves once it says it runs. */
  restart(): Promise<void>;
  running(): boolean;
}

/** The fault handles of a running campaign stack. Each is undone by the matching heal; `healAll` undoes every one. */
export interface FaultHandles {
  processes: ProductProcess[];
  database: {
    /** pg_terminate_backend on every session but the caller's; the number terminated. */
    terminateConnections(): Promise<number>;
    /** Stops the PostgreSQL server and starts it again on the same data and port. */
    restart(downMs: number): Promise<void>;
  };
  /** Per EVM chain: reorganise `depth` blocks, never reaching the final block. */
  chains: { chain: string; reorg(depth: number): Promise<void>; maxReorgDepth(): Promise<number> }[];
  broker: {
    set(fault: BrokerFault | undefined): void;
  };
  /** Loopback links between the product's parts, each through the campaign's fault proxy. */
  links: { name: string; set(fault: LinkFault | undefined): void }[];
}

export type BrokerFault =
  | { kind: 'slow'; delayMs: number }
  | { kind: 'failing'; status: 500 | 502 | 503 }
  | { kind: 'timeout' }
  | { kind: 'duplicate' }
  | { kind: 'partial'; maxFillQty: string }
  | { kind: 'reject' };

export interface LinkFault {
  latencyMs?: number;
  /** Probability in [0, 1] that a new connection is cut at once, and that an open one is cut per second. */
  dropRate?: number;
}
