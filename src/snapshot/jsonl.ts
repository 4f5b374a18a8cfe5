import { messageOf } from '../errors.js';
import { corrupt } from './format.js';

/** One JSON value per line, newline-terminated; the UTF-8 text is decoded strictly. */
export function encodeJsonLines(values: Iterable<unknown>): Uint8Array {
  let text = '';
  for (const value of values) text += `${JSON.stringify(value)}\n`;
  return new TextEncoder().encode(text);
}

export function decodeJson(method: string, part: string, bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decodeUtf8(bytes));
  } catch (cause) {
    throw corrupt(method, `${part} is not valid UTF-8 JSON (${messageOf(cause)})`, cause);
  }
}

/** Parses every line; `line(value, n)` gets 1-based line numbers for its messages. */
export function decodeJsonLines(method: string, part: string, bytes: Uint8Array, line: (value: unknown, n: number) => void): number {
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch (cause) {
    throw corrupt(method, `${part} is not valid UTF-8`, cause);
  }
  if (text === '') return 0;
  if (!text.endsWith('\n')) throw corrupt(method, `${part} does not end with a newline (truncated?)`);
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((source, i) => {
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (cause) {
      throw corrupt(method, `${part} line ${i + 1} is not JSON: ${JSON.stringify(source.slice(0, 60))}`, cause);
    }
    line(value, i + 1);
  });
  return lines.length;
}

function decodeUtf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
}
