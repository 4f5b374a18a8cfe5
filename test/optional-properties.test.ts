/**
 * Every call takes an optional field given as `undefined` as a field left out (`update`'s patch
 * included). The declarations must say so: an app compiled with `exactOptionalPropertyTypes`
 * may pass `{ kind: maybeKind }` only to a property typed `kind?: string | undefined`.
 */
import { readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url);

const admitsUndefined = (type: ts.TypeNode): boolean => {
  const members = ts.isUnionTypeNode(type) ? type.types : [type];
  const open = [ts.SyntaxKind.UndefinedKeyword, ts.SyntaxKind.AnyKeyword, ts.SyntaxKind.UnknownKeyword, ts.SyntaxKind.NeverKeyword];
  return members.some((m) => open.includes(m.kind));
};

/** A shape a value is cast to, to read it: nothing is ever passed to it. */
const inCast = (node: ts.Node): boolean => {
  for (let up = node.parent; up; up = up.parent) if (ts.isAsExpression(up) || ts.isTypeAssertionExpression(up)) return true;
  return false;
};

/**
 * `file:line name` of each optional property (and optional mapped type) in `text` whose type
 * leaves out undefined, but for the shapes of casts.
 */
function strictOptionals(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const optional = (ts.isPropertySignature(node) || ts.isMappedTypeNode(node)) && node.questionToken && node.questionToken.kind !== ts.SyntaxKind.MinusToken;
    if (optional && node.type && !admitsUndefined(node.type) && !inCast(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line} ${ts.isPropertySignature(node) ? node.name.getText(source) : node.getText(source).slice(0, 40)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('optional properties', () => {
  it('every optional property in the sources admits undefined', async () => {
    const files = execFileSync('git', ['ls-files', 'src'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) found.push(...strictOptionals(file, await readFile(new URL(file, ROOT), 'utf8')));
    expect(found).toEqual([]);
  });

  it('finds a property or a mapped type that leaves undefined out, and only those', () => {
    const text = [
      'interface A { a?: string; b?: string | undefined; c?: (x: number) => void; d?: unknown; e: string }',
      'type B = { f?: number | null; g?: (() => void) | undefined };',
      'type C = { [K in "x" | "y"]?: number };',
      'type D = { [K in "x"]-?: number };',
      'const e = value as { h?: number; i?: never };',
    ].join('\n');
    expect(strictOptionals('t.ts', text)).toEqual(['t.ts:1 a', 't.ts:1 c', 't.ts:2 f', 't.ts:3 { [K in "x" | "y"]?: number }']);
  });
});
