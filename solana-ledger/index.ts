/** The local Solana ledger: litesvm behind a JSON-RPC endpoint (see README.md beside this file). */
import type { AddressInfo } from 'node:net';
import { Ledger, type LedgerOptions } from './ledger';
import { createRpcServer } from './rpc';

export { Ledger, type Commitment, type LedgerOptions } from './ledger';

export interface SolanaLedgerOptions extends LedgerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
}

export interface SolanaLedger {
  rpcUrl: string;
  port: number;
  ledger: Ledger;
  /** Stops the slot timer, writes the snapshot, closes the endpoint. */
  stop(): Promise<void>;
}

export async function startSolanaLedger(options: SolanaLedgerOptions = {}): Promise<SolanaLedger> {
  const host = options.host ?? '127.0.0.1';
  const ledger = new Ledger(options);
  const server = createRpcServer(ledger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  ledger.start();
  const { port } = server.address() as AddressInfo;
  let stopping: Promise<void> | undefined;
  return {
    rpcUrl: `http://${host}:${port}`,
    port,
    ledger,
    stop: () =>
      (stopping ??= new Promise<void>((resolve) => {
        ledger.stop();
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}
