/**
 * A bare Bolt app (Bolt's own HTTPReceiver) that acknowledges `/tender` and does nothing else:
 * the baseline of bench:bot, as ../shared/ANCHORS.md measures it.
 *
 *   SLACK_SIGNING_SECRET=… node --import tsx bench/support/bare-bolt.ts   (prints "listening on URL")
 */
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

const receiver = new HTTPReceiver({ signingSecret: process.env.SLACK_SIGNING_SECRET ?? '' });
const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  receiver,
  // Known ids, so that Bolt never asks auth.test (nothing here depends on the Web API).
  tokenVerificationEnabled: false,
  botId: 'BBENCHBOLT',
  botUserId: 'UBENCHBOLT',
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL },
  logLevel: process.env.BOLT_DEBUG ? LogLevel.DEBUG : LogLevel.ERROR,
});
app.command('/tender', async ({ ack }) => {
  await ack();
});
const server = (await app.start(0)) as { address(): AddressInfo };
console.log(`listening on http://127.0.0.1:${server.address().port}/slack/events`);
process.on('SIGTERM', () => {
  void app.stop().then(() => process.exit(0));
});
