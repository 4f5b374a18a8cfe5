import { execFileSync } from 'node:child_process';

/** Builds the example extension once per run (it is loaded from its dist/ folder). */
export default function globalSetup(): void {
  execFileSync('npx', ['vite', 'build', '--config', 'e2e/fixtures/extension/vite.config.ts', '--logLevel', 'warn'], { stdio: 'inherit' });
}
