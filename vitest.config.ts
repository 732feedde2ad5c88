import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // most test files wait on processes, sockets and PostgreSQL rather than compute: on 2 cores two files
    // at a time take the suite from about 440 s to 270 s (vitest's default there is one)
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
