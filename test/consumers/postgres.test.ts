/**
 * A Node server that installed the packed tarball with `pg` keeps memory in a real PostgreSQL
 * server with pgvector through `hybridmind/postgres`: writes, a hybrid recall with a supersession
 * and a relation, a device's embedded store synced both ways, and the memory exported as a
 * .mind.zip that an embedded store imports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../postgres/cluster.js';
import { installConsumer, lastJson, runOk } from './support/consumer.js';

let dir: string;
let cluster: Cluster | undefined;

beforeAll(async () => {
  ({ dir } = await installConsumer('postgres'));
  cluster = startCluster();
});
afterAll(() => cluster?.stop());

interface Report {
  hits: Array<[string, string]>;
  dependsOn: string | undefined;
  pulled: Record<string, number>;
  pushed: Record<string, number>;
  onServer: string | null;
  device: Array<[string, string]>;
  moved: number;
  movedEdges: string[];
}

describe('hybridmind/postgres from the packed package', () => {
  it('stores, relates and recalls in PostgreSQL, syncs a device both ways, and exports a snapshot an embedded store imports', async () => {
    const { stdout } = await runOk('node', ['server.mjs', JSON.stringify(cluster!.connection)], { cwd: dir });
    const report = lastJson<Report>(stdout);
    expect(report.hits.slice(0, 2)).toEqual([['adr-007', 'current'], ['adr-003', 'historical']]);
    expect(report.dependsOn).toBe('adr-007');
    expect(report.pulled).toMatchObject({ memories: 3, related: 2 });
    expect(report.pushed).toMatchObject({ memories: 1 });
    expect(report.onServer).toBe('Written on the device while offline');
    expect(report.device[0]).toEqual(['adr-007', 'current']);
    expect(report.moved).toBe(4);
    expect(report.movedEdges).toEqual(['adr-007 SUPERSEDES adr-003', 'sync DEPENDS_ON adr-007']);
  });
});
