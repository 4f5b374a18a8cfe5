import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** Where Debian's PostgreSQL 15 keeps initdb, pg_ctl and postgres. */
const BIN = process.env['PG_BIN'] ?? '/usr/lib/postgresql/15/bin';

export interface Cluster {
  /** Connection settings for node-postgres (unix socket in a private folder). */
  connection: { host: string; port: number; user: string; database: string };
  /** A fresh schema name per caller, so tests sharing the cluster never see each other's rows. */
  schema(prefix: string): string;
  /** A hot standby streaming from this cluster (pg_basebackup -R), stopped with it. */
  standby(): Cluster;
  stop(): void;
}

/**
 * A throwaway PostgreSQL cluster: initdb + pg_ctl on a private port and socket folder under a
 * temp dir, owned by the `postgres` user when we are root (the server refuses to run as root),
 * with pgvector created. `scripts/setup.d/30-pgvector.sh` installs pgvector when it is missing.
 */
export function startCluster(): Cluster {
  return launch((run, data) => run(join(BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync']));
}

type Run = (cmd: string, args: string[]) => void;

/** A server on a fresh folder that `init` fills (initdb, or a base backup of another server). */
function launch(init: (run: Run, data: string) => void): Cluster {
  const root = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'hybridmind-pg-'));
  chmodSync(dir, 0o755);
  const osUser = root ? 'postgres' : userInfo().username;
  if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), Number(execFileSync('id', ['-g', 'postgres']).toString().trim()));
  const run: Run = (cmd, args) => {
    if (root) execFileSync('su', [osUser, '-s', '/bin/sh', '-c', [cmd, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ')], { stdio: 'pipe' });
    else execFileSync(cmd, args, { stdio: 'pipe' });
  };
  const port = 20000 + Math.floor(Math.random() * 20000);
  const data = join(dir, 'data');
  init(run, data);
  const settings = `-p ${port} -k ${dir} -c listen_addresses='' -c fsync=off -c max_connections=200 -c shared_buffers=256MB`;
  run(join(BIN, 'pg_ctl'), ['-D', data, '-o', settings, '-l', join(dir, 'log'), '-w', 'start']);
  let stopped = false;
  const standbys: Array<() => void> = [];
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const s of standbys) s();
    try {
      run(join(BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    } finally {
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    }
  };
  process.once('exit', stop);
  let n = 0;
  const cluster: Cluster = {
    connection: { host: dir, port, user: 'postgres', database: 'postgres' },
    schema: (prefix) => `${prefix}_${process.pid}_${++n}`,
    standby: () => {
      // -R writes standby.signal and primary_conninfo: the copy starts as a hot standby streaming from here.
      const replica = launch((r, target) => r(join(BIN, 'pg_basebackup'), ['-h', dir, '-p', String(port), '-U', 'postgres', '-D', target, '-R', '-X', 'stream', '--no-sync']));
      standbys.push(replica.stop);
      return replica;
    },
    stop,
  };
  return cluster;
}
