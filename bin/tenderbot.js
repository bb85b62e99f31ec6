#!/usr/bin/env -S node --max-semi-space-size=64
// The flag on the first line: a young generation of up to 64 MB a half, where V8's default is 16.
// A bot answering commands makes short-lived objects fast; with the default most of them outlived
// two scavenges, were copied to the old generation and collected there. bench:bot measured 8 %
// less CPU per answered search with it (docs/performance.md). npm's scripts pass the same flag.
// The project runs its TypeScript sources directly through tsx's loader, so a checkout
// needs no build step before `tenderbot` works.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
