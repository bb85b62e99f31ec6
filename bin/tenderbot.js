#!/usr/bin/env node
// The project runs its TypeScript sources directly through tsx's loader, so a checkout
// needs no build step before `tenderbot` works.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
