#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so `npx sentinel` works straight after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

// `sentinel replay --json | head` closes the pipe early; that is the reader's choice, not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

// The lockfile pins the AWS SDK, so its notice about the Node versions of future SDK releases is not for CLI users.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
