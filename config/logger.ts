/** The process logger: structured JSON, or pretty lines for a terminal during development. */
import pino, { type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export interface LoggerOptions {
  level: string;
  format?: 'pretty' | 'json';
}

export function createLogger({ level, format }: LoggerOptions): Logger {
  const usePretty = (format ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'pretty';
  const options = { level, base: undefined, redact: ['req.headers["x-api-key"]', 'apiKey', 'key', 'privateKey'] };
  // Pretty lines are written synchronously, so that the last one (`stopped`) is out before the process exits. JSON
  // lines are buffered while a write is under way and written together (one system call for many request logs, not
  // one each); pino flushes what is left when the process exits.
  return usePretty
    ? pino(options, pretty({ colorize: process.stdout.isTTY, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', sync: true }))
    : pino(options, asBuffers(pino.destination({ dest: 1, sync: false, contentMode: 'buffer' })));
}

/**
 * Hands each JSON line to `destination` as bytes. Given strings, sonic-boom measures the byte length of all it holds
 * on every write (flattening the string it appends to); given buffers, it adds up their lengths: 3.3 → 2.0 µs a line.
 */
function asBuffers(destination: ReturnType<typeof pino.destination>): DestinationStream & { flush(callback?: (error?: Error) => void): void } {
  return {
    write: (line: string) => destination.write(Buffer.from(line) as unknown as string),
    flush: (callback) => destination.flush(callback),
  };
}
