import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // vitest's default: one file at a time on 2 cores. Two at a time took the suite from 440 s to 260 s,
    // but the PostgreSQL followers' tests then flake: another file's open transaction holds the shared
    // log back (its xmin rule, src/store/pg/change-log.ts) past the 5 s their notification test allows.
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
