// A CommonJS app: require() of the package's ES modules, as Node ≥ 20.19 allows.
const { HybridMemory, HybridMindError } = require('hybridmind');
const { SqliteFileDriver } = require('hybridmind/node');
const { PostgresMemory } = require('hybridmind/postgres');
const { openDurableMemory } = require('hybridmind/edge');
const { connect } = require('hybridmind/client');

(async () => {
  const mem = await HybridMemory.open({ embedder: null });
  await mem.store({ id: 'order-4821', text: 'Order #4821 was refunded after the courier lost it' });
  const hits = (await mem.recall('Order #4821')).map((h) => h.id);
  const code = await mem.get(42).catch((error) => (error instanceof HybridMindError ? error.code : String(error)));
  await mem.close();
  const loaded = [SqliteFileDriver, PostgresMemory, openDurableMemory, connect].map((f) => typeof f);
  console.log(JSON.stringify({ hits, code, loaded }));
})();
