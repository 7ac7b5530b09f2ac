#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so `npx sentinel` works straight after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

// `sentinel replay --json | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
