import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // one file at a time per vitest process (vitest's default on 2 cores); `npm test` runs the files in
    // lanes of their own instead (scripts/test.mjs): the PostgreSQL files one at a time in one (their
    // change-log followers must see no other file's open transaction, src/store/pg/change-log.ts), the
    // rest in two beside it.
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
