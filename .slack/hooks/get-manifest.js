#!/usr/bin/env node
// The Slack CLI's `get-manifest` hook: Tenderbot's manifest is manifest.yml (commented YAML), which
// @slack/cli-hooks' own hook cannot read (it looks for manifest.json), so this prints it as JSON,
// unchanged, through the protocol the CLI asked for (`--protocol=message-boundaries`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getProtocol } from '@slack/cli-hooks/src/protocols.js';
import { parse } from 'yaml';

const protocol = getProtocol(process.argv.slice(1));
const manifest = parse(readFileSync(join(import.meta.dirname, '..', '..', 'manifest.yml'), 'utf8'));
protocol.respond(JSON.stringify(manifest));
