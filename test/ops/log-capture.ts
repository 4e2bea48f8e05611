import { createLogger, type Logger } from '../../src/lib/logger.js';

/** The service's real logger (same redaction), writing its JSON lines into an array. */
export function capturedLogger(level = 'trace'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}
