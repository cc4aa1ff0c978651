/** The Solana ledger's confirmed slot over JSON-RPC: the head the Solana chain watcher is judged against. */
import { createSolanaRpc } from '@solana/kit';

/** Answers the slot `confirmed` reads at on the ledger behind `rpcUrl` (what the Solana watcher reads up to). */
export function confirmedSlotReader(rpcUrl: string): () => Promise<number> {
  const rpc = createSolanaRpc(rpcUrl);
  return async () => Number(await rpc.getSlot({ commitment: 'confirmed' }).send());
}
