/**
 * What `hybridmind/worker` resolves to under the `node` condition (Node, Deno): the worker bundle
 * is a browser Web Worker and would fail deep inside (`addEventListener is not a function`), so
 * importing it here fails at once, coded, and says what to use instead.
 */
import { HybridMindError } from './errors.js';

throw new HybridMindError('UNSUPPORTED', 'hybridmind/worker',
  "is the browser Web Worker behind HybridMemory.connect() (start it with `new Worker(…, { type: 'module' })` in a page); in Node or Deno use HybridMemory.open() from 'hybridmind'");
