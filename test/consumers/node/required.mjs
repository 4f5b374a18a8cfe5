import { HybridMemory } from 'hybridmind';

// Without a provisioned model, 'required' fails with a coded error instead of opening without a dense leg.
try {
  await HybridMemory.open({ embedder: 'required' });
  console.log(JSON.stringify({ opened: true }));
} catch (error) {
  console.log(JSON.stringify({ code: error.code, message: error.message }));
}
