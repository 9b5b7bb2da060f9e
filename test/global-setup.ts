import { execFileSync } from 'node:child_process';
import { builtTree } from './helpers/built-tree.js';

/**
 * Makes sure the real services the integration tests use are up before any test file runs, and
 * that the compiled tree spawned processes run from is built (helpers/built-tree.ts).
 */
export default function setup(): void {
  execFileSync('bash', ['scripts/dev-services.sh'], { stdio: ['ignore', 'inherit', 'inherit'] });
  builtTree();
}
