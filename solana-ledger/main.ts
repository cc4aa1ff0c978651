/** `npm run solana:ledger -- --port 8899 [--state-dir DIR] [--slot-ms 400]`: the local ledger on its own, until SIGINT/SIGTERM. */
import { parseArgs } from 'node:util';
import { startSolanaLedger } from '.';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8899' },
    host: { type: 'string', default: '127.0.0.1' },
    'state-dir': { type: 'string' },
    'slot-ms': { type: 'string' },
    'confirmed-lag': { type: 'string' },
    'finalized-lag': { type: 'string' },
  },
});
const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));

void (async () => {
  const running = await startSolanaLedger({
    port: Number(values.port),
    host: values.host,
    stateDirectory: values['state-dir'],
    slotMs: number(values['slot-ms']),
    confirmedLag: number(values['confirmed-lag']),
    finalizedLag: number(values['finalized-lag']),
  });
  process.stdout.write(`solana ledger listening on ${running.rpcUrl} (slot ${running.ledger.slot})\n`);
  const stop = () => void running.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
})();
