import { execFileSync } from 'node:child_process';

/** Makes sure the real services the integration tests use are up before any test file runs. */
export default function setup(): void {
  execFileSync('bash', ['scripts/dev-services.sh'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
