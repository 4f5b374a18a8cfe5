import { describe, expect, it } from 'vitest';
import { nodeInRange } from '../../src/util/engines.js';
import { checkEngineNode } from '../../src/storage/node-file.js';

describe('nodeInRange', () => {
  it.each([
    ['>=22', '20.20.2', false],
    ['>=22', '22.0.0', true],
    ['>=22', '26.12.1', true],
    ['>= 22.5.0', '22.4.9', false],
    ['>=22.5', '22.5.0', true],
    ['20.x || 22.x || 23.x || 24.x || 25.x || 26.x', '20.20.2', true],
    ['20.x || 22.x || 23.x || 24.x || 25.x || 26.x', '21.7.3', false],
    ['20.x || 22.x', 'v22.1.0', true],
    ['22.5.x', '22.5.9', true],
    ['22.5.x', '22.6.0', false],
    ['^20.17.0 || >=22.9.0', '20.16.0', false],
    ['^20.17.0 || >=22.9.0', '20.18.1', true],
    ['^20.17.0 || >=22.9.0', '21.0.0', false],
    ['20', '20.20.2', true],
    ['18', '20.20.2', false],
  ] as const)('%s holds %s: %s', (range, version, expected) => {
    expect(nodeInRange(range, version)).toBe(expected);
  });

  it.each(['<23', '>=20 <23', '20 - 22', '*', '', 'lts', '~20.1.0'])('does not judge a range it does not read: %j', (range) => {
    expect(nodeInRange(range, '20.20.2')).toBeNull();
  });
});

describe("the file store's check of better-sqlite3's engines", () => {
  it('refuses a better-sqlite3 whose engines leave this Node out, naming both versions and what to install', () => {
    const check = () => checkEngineNode('SqliteFileDriver.open', { version: '13.2.0', engines: { node: '>=22' } }, '20.20.2');
    expect(check).toThrow(expect.objectContaining({ code: 'MISSING_DEPENDENCY' }));
    expect(check).toThrow(/^SqliteFileDriver\.open: the installed better-sqlite3 13\.2\.0 supports Node >=22, and this is Node 20\.20\.2: install one that supports it \(`npm install better-sqlite3@12` on Node 20\)$/);
  });

  it('takes one whose engines hold this Node, or that declares none, or a range it does not read', () => {
    for (const pkg of [{ version: '12.11.1', engines: { node: '20.x || 22.x || 24.x' } }, { version: '13.2.0', engines: { node: '>=22' } }, { version: '9.0.0' }, { version: '14.0.0', engines: { node: '>=20 <30' } }, {}]) {
      expect(() => checkEngineNode('SqliteFileDriver.open', pkg, pkg.version === '13.2.0' ? '24.1.0' : '20.20.2')).not.toThrow();
    }
  });
});
