/**
 * A process that logs `LINES` JSON lines as fast as it can, then, a moment later (its writes under way), `last`, and
 * exits with `exitAfterLogs` — the way `npm start` and the roles end (test/unit/logger/exit.test.ts reads its output).
 */
import { createLogger, exitAfterLogs } from '../../../config/logger';

const logger = createLogger({ level: 'info', format: 'json' });
const lines = Number(process.env.LINES);
for (let index = 0; index < lines; index++) logger.info({ index, padding: 'x'.repeat(200) }, 'line');
setTimeout(() => {
  logger.info({ index: lines }, 'last');
  exitAfterLogs(logger, 3);
}, 100);
