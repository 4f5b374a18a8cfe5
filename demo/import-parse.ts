import type { MemoryInput } from '../src/types.js';

/** What a dropped file or pasted text turned out to be. */
export type Parsed =
  | { type: 'memories'; format: 'markdown' | 'chat'; memories: MemoryInput[] }
  | { type: 'snapshot'; bytes: Uint8Array };

/** Sections longer than this are cut at paragraph breaks: one memory should be one idea. */
export const MAX_SECTION_CHARS = 1500;

const slug = (s: string): string => s.toLowerCase().normalize('NFKD').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'section';

function uniqueIds(memories: MemoryInput[]): MemoryInput[] {
  const seen = new Map<string, number>();
  for (const m of memories) {
    const n = (seen.get(m.id!) ?? 0) + 1;
    seen.set(m.id!, n);
    if (n > 1) m.id = `${m.id}-${n}`;
  }
  return memories;
}

/** Cuts a long section at blank lines into pieces of at most `max` characters (a longer paragraph stays whole). */
export function chunkParagraphs(text: string, max = MAX_SECTION_CHARS): string[] {
  if (text.length <= max) return [text];
  const out: string[] = [];
  let current = '';
  for (const para of text.split(/\n\s*\n/)) {
    if (current && current.length + para.length + 2 > max) {
      out.push(current);
      current = '';
    }
    current = current ? `${current}\n\n${para}` : para;
  }
  if (current) out.push(current);
  return out;
}

/**
 * Markdown notes as memories, one per heading section (the heading stays in the text, so the
 * words of the title are searchable), long sections cut at paragraphs. Front matter is dropped.
 * Ids are `<note>/<heading-slug>`, so a note imported twice conflicts instead of duplicating.
 */
export function parseMarkdown(text: string, name = 'notes'): MemoryInput[] {
  const note = slug(name.replace(/\.(md|markdown|txt)$/i, ''));
  const body = text.replace(/^\uFEFF?---\n[\s\S]*?\n---\n/, '');
  const sections: Array<{ heading: string; lines: string[] }> = [{ heading: '', lines: [] }];
  let fenced = false;
  for (const line of body.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) sections.push({ heading: m[2]!, lines: [line] });
    else sections.at(-1)!.lines.push(line);
  }
  const memories: MemoryInput[] = [];
  for (const s of sections) {
    const content = s.lines.join('\n').trim();
    // A heading with nothing under it (only subsections) is not a memory of its own.
    if (!content || (s.heading && content === s.lines[0]!.trim())) continue;
    const base = `${note}/${s.heading ? slug(s.heading) : 'intro'}`;
    const pieces = chunkParagraphs(content);
    pieces.forEach((piece, i) => memories.push({
      id: pieces.length > 1 ? `${base}-${i + 1}` : base,
      text: piece,
      kind: 'note',
      domain: note,
      metadata: { source: name, ...(s.heading ? { heading: s.heading } : {}) },
    }));
  }
  return uniqueIds(memories);
}

interface Turn {
  role?: unknown;
  author?: unknown;
  content?: unknown;
  text?: unknown;
  timestamp?: unknown;
  created_at?: unknown;
  createdAt?: unknown;
  time?: unknown;
}

function turnText(t: Turn): string {
  const c = t.content ?? t.text;
  if (typeof c === 'string') return c.trim();
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'string' ? p : typeof (p as { text?: unknown })?.text === 'string' ? (p as { text: string }).text : '')).join('\n').trim();
  return '';
}

function turnTime(t: Turn): number | undefined {
  const raw = t.timestamp ?? t.created_at ?? t.createdAt ?? t.time;
  if (typeof raw === 'number' && Number.isFinite(raw)) return raw < 1e11 ? raw * 1000 : raw;
  if (typeof raw === 'string') {
    const ms = Date.parse(raw);
    if (!Number.isNaN(ms)) return ms;
  }
  return undefined;
}

function turnRole(t: Turn): string {
  const r = t.role ?? (t.author as { role?: unknown } | undefined)?.role ?? t.author;
  return typeof r === 'string' && r ? r : 'turn';
}

/** Conversations found in parsed JSON: an array of turns, `{ messages }`, or an array of those. */
function conversations(data: unknown): Array<{ title: string; turns: Turn[] }> {
  const isTurn = (x: unknown) => x !== null && typeof x === 'object' && ('content' in x || 'text' in x);
  if (isTurn(data)) return [{ title: 'chat', turns: [data as Turn] }];
  if (Array.isArray(data) && data.every(isTurn)) return [{ title: 'chat', turns: data as Turn[] }];
  const list = Array.isArray(data) ? data : [data];
  return list.flatMap((c, i) => {
    const conv = c as { messages?: unknown; title?: unknown; name?: unknown };
    if (!conv || !Array.isArray(conv.messages)) return [];
    const title = typeof conv.title === 'string' ? conv.title : typeof conv.name === 'string' ? conv.name : `chat-${i + 1}`;
    return [{ title, turns: conv.messages.filter(isTurn) as Turn[] }];
  });
}

/**
 * Chat turns as memories, one per non-empty turn, text prefixed with the speaker. Accepts a JSON
 * array of turns (`{ role, content, timestamp? }`), `{ messages: [...] }`, an array of such
 * conversations, or JSONL with one turn per line.
 */
export function parseChat(text: string, name = 'chat'): MemoryInput[] {
  const trimmed = text.trim();
  let data: unknown;
  try {
    data = JSON.parse(trimmed);
  } catch {
    data = trimmed.split(/\r?\n/).filter((l) => l.trim()).map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new Error(`${name}: line ${i + 1} is not JSON`);
      }
    });
  }
  const convs = conversations(data);
  if (convs.length === 0) throw new Error(`${name}: no chat turns found; expected objects with "role" and "content"`);
  const memories: MemoryInput[] = [];
  for (const conv of convs) {
    for (const turn of conv.turns) {
      const body = turnText(turn);
      if (!body) continue;
      const role = turnRole(turn);
      const createdAt = turnTime(turn);
      memories.push({
        text: `${role}: ${body}`,
        kind: 'chat',
        domain: slug(conv.title),
        metadata: { role, conversation: conv.title, source: name },
        ...(createdAt !== undefined ? { createdAt } : {}),
      });
    }
  }
  return memories;
}

const isZip = (bytes: Uint8Array) => bytes.length > 3 && bytes[0] === 0x50 && bytes[1] === 0x4b;

/** Tells a snapshot, chat JSON/JSONL and Markdown apart by name first, then by content. */
export function parseInput(name: string, bytes: Uint8Array): Parsed {
  if (/\.zip$/i.test(name) || isZip(bytes)) return { type: 'snapshot', bytes };
  const text = new TextDecoder().decode(bytes);
  const looksJson = /\.(jsonl?|ndjson)$/i.test(name) || /^\s*[[{]/.test(text);
  if (looksJson) return { type: 'memories', format: 'chat', memories: parseChat(text, name) };
  return { type: 'memories', format: 'markdown', memories: parseMarkdown(text, name) };
}
