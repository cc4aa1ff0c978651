/** The process logger: structured JSON, or pretty lines for a terminal during development. */
import pino, { type Logger } from 'pino';
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
    : pino(options, pino.destination({ dest: 1, sync: false }));
}
