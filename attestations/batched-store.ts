/**
 * Attestations of concurrent orders stored and committed together. Each order's commit waits for its WAL flush, and
 * off-hours every order also locks its session's exposure ledger until then (the exposure caps are exact across all
 * assets): one at a time, a session's off-hours orders would run at the disk's flush pace. Here, while one store runs,
 * the orders that arrive wait and go together as the next batch (at most `MAX_BATCH`): the first one's transaction
 * stores them all — off-hours, each within the caps as the ones before it left them — and commits them with one flush;
 * each of the others, whose own transaction holds its user's lock meanwhile (`beginOrder`), then ends its transaction.
 * Alone, an order is stored at once.
 *
 * A batch that fails is undone and each of its orders stored alone, so that each gets its own answer; when it cannot
 * be undone (the connection is gone: it may have committed), each order gets the error.
 *
 * Until its batch commits, an order's own transaction must hold nothing the batch's writes could wait on: it takes
 * only its advisory lock and reads. A row it wrote would make the batch wait for the order, which waits for the batch —
 * a deadlock PostgreSQL cannot see.
 */
import type { PoolClient } from 'pg';
import { storeAttestationsAndCommit, undoStoreBatch, type AttestationToStore } from '../db/queries/attestations';

const MAX_BATCH = 100;

/** What became of an order in its batch: stored or not, and whether its transaction was the batch's; or store it alone. */
type Outcome = { stored: boolean; ended: boolean } | 'alone';

interface Waiting {
  client: PoolClient;
  order: AttestationToStore;
  settle(outcome: Outcome): void;
  fail(error: unknown): void;
}

export class BatchedStore {
  private readonly waiting: Waiting[] = [];
  private storing = false;

  /**
   * Stores the order's attestation (within its caps, if it has any) and ends its transaction on `client`: committed, or
   * on an error left for the caller to roll back. Answers false when the caps left no room.
   */
  async storeAndCommit(client: PoolClient, order: AttestationToStore): Promise<boolean> {
    const outcome = await new Promise<Outcome>((settle, fail) => {
      this.waiting.push({ client, order, settle, fail });
      if (!this.storing) void this.storeWaiting();
    });
    if (outcome === 'alone') return (await storeAttestationsAndCommit(client, [order]))[0]!;
    if (!outcome.ended) await client.query('COMMIT');
    return outcome.stored;
  }

  /** Stores the waiting orders, batch after batch, until none wait. */
  private async storeWaiting(): Promise<void> {
    this.storing = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      const first = batch[0]!;
      try {
        const stored = await storeAttestationsAndCommit(first.client, batch.map((each) => each.order));
        batch.forEach((each, index) => each.settle({ stored: stored[index]!, ended: each === first }));
      } catch (error) {
        if (batch.length > 1 && (await undoStoreBatch(first.client).then(() => true, () => false))) {
          for (const each of batch) each.settle('alone');
        } else {
          for (const each of batch) each.fail(error);
        }
      }
    }
    this.storing = false;
  }
}
