#!/usr/bin/env node
// The Slack CLI's `start` hook (`slack run`): starts `tenderbot bot` in Socket Mode with the tokens
// the CLI made for its development app. The CLI gives them as SLACK_APP_TOKEN and SLACK_BOT_TOKEN
// (older versions as SLACK_CLI_XAPP and SLACK_CLI_XOXB); the rest of the bot's settings
// (PROCUREMENT_API_URL, DATABASE_URL, ENCRYPTION_KEY…) come from the developer's environment.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const appToken = process.env.SLACK_APP_TOKEN || process.env.SLACK_CLI_XAPP;
const botToken = process.env.SLACK_BOT_TOKEN || process.env.SLACK_CLI_XOXB;
if (!appToken || !botToken) {
  console.error(
    'tenderbot: `slack run` gives the app an app-level token (xapp-) and a bot token (xoxb-); neither SLACK_APP_TOKEN nor SLACK_CLI_XAPP was set. Run this through `slack run`.',
  );
  process.exit(1);
}
const bot = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'tenderbot.js'), 'bot'], {
  stdio: 'inherit',
  env: { ...process.env, SLACK_APP_TOKEN: appToken, SLACK_BOT_TOKEN: botToken },
});
bot.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => bot.kill(signal));
