export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Receives the library's diagnostics; the default drops them. Pass `console`-backed one to see them. */
export type Logger = (level: LogLevel, message: string, details?: Record<string, unknown>) => void;

export const silentLogger: Logger = () => {};
