import { afterEach, describe, expect, it } from 'vitest';
import type { Hit, HybridMemory } from '../../src/index.js';
import { mayNameSomeone, namedIn, speakerOf } from '../../src/memory/speakers.js';
import { openMemory } from '../support/memory.js';

describe('speakerOf', () => {
  it('takes metadata.speaker first, else the label the text opens with', () => {
    expect(speakerOf({ speaker: ' Maria ' }, 'John: hello')).toBe('Maria');
    expect(speakerOf({}, 'John: hello')).toBe('John');
    expect(speakerOf({}, 'Dr Ruth Smith: the scan is clear')).toBe('Dr Ruth Smith');
    expect(speakerOf({ speaker: '' }, 'Zoë: ça va')).toBe('Zoë');
  });

  it('finds no speaker without a label of one to three capitalised words and a colon', () => {
    expect(speakerOf({}, 'the deploy: done')).toBeNull();
    expect(speakerOf({}, 'One Two Three Four: too long for a name')).toBeNull();
    expect(speakerOf({}, 'Note that John: said so')).toBeNull();
    expect(speakerOf({}, 'ADR-007:SQLite')).toBeNull();
    expect(speakerOf({ speaker: 7 }, 'plain text')).toBeNull();
  });
});

describe('namedIn and mayNameSomeone', () => {
  it('finds the speakers a query names as whole words, possessives included', () => {
    expect([...namedIn("What is Maria's favourite dish?", ['Maria', 'John'])]).toEqual(['Maria']);
    expect([...namedIn('what did maria and john cook', ['Maria', 'John'])]).toEqual(['Maria', 'John']);
    expect([...namedIn('What did Mariah cook?', ['Maria'])]).toEqual([]);
    expect([...namedIn('Did Dr Ruth Smith call?', ['Dr Ruth Smith', 'Ruth'])]).toEqual(['Dr Ruth Smith', 'Ruth']);
  });

  it('reads a query as naming someone only when a word past the first is capitalised', () => {
    expect(mayNameSomeone('What did Maria cook?')).toBe(true);
    expect(mayNameSomeone('What did she cook?')).toBe(false);
    expect(mayNameSomeone('Maria')).toBe(false);
  });
});

describe('recall gives a vote to what the named person said', () => {
  let mem: HybridMemory;
  afterEach(async () => mem?.close());

  async function conversation(metadataOnly = false) {
    mem = await openMemory();
    const turn = (id: string, speaker: string, text: string) =>
      metadataOnly ? { id, text, metadata: { speaker } } : { id, text: `${speaker}: ${text}` };
    await mem.storeMany([
      turn('john-asks', 'John', 'Maria, you should cook pasta more often'),
      turn('maria-says', 'Maria', 'Yesterday I made lentil soup for dinner'),
      ...Array.from({ length: 12 }, (_, i) => turn(`filler-${i}`, i % 2 ? 'John' : 'Maria', `Weather note ${i}: rain again over the harbour`)),
    ]);
    await mem.ready();
  }
  const byId = (hits: Hit[], id: string) => hits.find((h) => h.id === id);

  for (const metadataOnly of [false, true]) {
    it(`adds exactly one vote to the named speaker's memories, explained (${metadataOnly ? 'metadata.speaker' : 'transcript label'})`, async () => {
      await conversation(metadataOnly);
      const query = 'What did Maria cook?';
      const on = await mem.recall(query, { k: 14 });
      const off = await mem.recall(query, { k: 14, speakers: false });
      expect(byId(on, 'maria-says')!.score - byId(off, 'maria-says')!.score).toBeCloseTo(1, 9);
      expect(byId(on, 'john-asks')!.score).toBeCloseTo(byId(off, 'john-asks')!.score, 9);
      expect(byId(on, 'maria-says')!.legs.speaker).toBe('Maria');
      expect(byId(on, 'john-asks')!.legs.speaker).toBeUndefined();
      expect(off.every((h) => h.legs.speaker === undefined)).toBe(true);
    });
  }

  it('reads the speaker again when a memory is updated', async () => {
    await conversation();
    const query = 'What did Maria cook?';
    expect((await mem.recall(query, { k: 14 })).find((h) => h.id === 'john-asks')!.legs.speaker).toBeUndefined();
    await mem.update('john-asks', { text: 'Maria: Maria, you should cook pasta more often' });
    expect((await mem.recall(query, { k: 14 })).find((h) => h.id === 'john-asks')!.legs.speaker).toBe('Maria');
  });

  it('changes nothing when the query names nobody who speaks, or outside hybrid score fusion', async () => {
    await conversation();
    for (const [query, options] of [['What did Peter cook?', {}], ['what did she cook?', {}], ['What did Maria cook?', { fusion: 'rrf' as const }], ['What did Maria cook?', { mode: 'lexical' as const }]] as const) {
      expect(await mem.recall(query, options)).toEqual(await mem.recall(query, { ...options, speakers: false }));
    }
  });

  it('refuses a speakers option that is not a boolean, naming the method and value', async () => {
    await conversation();
    await expect(mem.recall('x', { speakers: 1 as unknown as boolean })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/recall.*speakers.*1/s) });
  });
});
