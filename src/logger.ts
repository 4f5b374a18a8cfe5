export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Receives the library's diagnostics. Pass your own to route them; `silentLogger` drops them all. */
export type Logger = (level: LogLevel, message: string, details?: Record<string, unknown>) => void;

export const silentLogger: Logger = () => {};

/**
 * What a store logs through when `open()` is given no logger: warnings and errors reach the
 * console, where a developer sees them (a default embedder that could not load, failed background
 * embedding); debug and info stay quiet.
 */
export const defaultLogger: Logger = (level, message, details) => {
  if (level !== 'warn' && level !== 'error') return;
  const args: unknown[] = details === undefined ? [`[hybridmind] ${message}`] : [`[hybridmind] ${message}`, details];
  if (level === 'warn') console.warn(...args);
  else console.error(...args);
};
