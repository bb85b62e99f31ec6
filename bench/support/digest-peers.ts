/**
 * The far side of bench:digests, in a process of its own as Slack and the service are in real
 * life: the local service (one bid per twenty subscriptions) and the fake Slack enforcing one post
 * per second per channel, with as many channels again (`B00000`…) for the bare poster
 * (bare-poster.ts), apart from Tenderbot's. Prints `{"serviceUrl","slackApiUrl","botToken",
 * "signingSecret"}` once ready; on `count` (stdin) prints how many messages Slack holds
 * (`{"messages":N}`, cheap: the bench polls it), on `report` what Slack received, on `sample` one
 * of Tenderbot's posts (`{"text","blocks"}`); on `stop` it stops.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { startSandbox } from '../../src/service/sandbox.ts';
import { benchFolder } from './serve-sandbox.ts';

const channels = Number(process.argv[2] ?? 200);
const pipelines = Number(process.argv[3] ?? 50);
const { dir, fixture, cleanup } = benchFolder('tenderbot-bench-digest-peers-', {
  pipelines: Array.from({ length: pipelines }, (_, index) => ({
    id: `pl-bench-${index}`,
    organisationId: 'org-bench',
    ownerId: 'usr-bench',
    name: `Regional cleaning bid ${index + 1}`,
    stages: ['Qualify', 'Plan', 'Write', 'Review', 'Submit'].map((name) => ({ name })),
  })),
});
const sandbox = await startSandbox({
  db: join(dir, 'service.db'),
  port: 0,
  fixture,
  demo: 200,
  logLevel: 'warn',
});
const signingSecret = randomBytes(12).toString('hex');
const botToken = `xoxb-bench-${randomBytes(8).toString('hex')}`;
const slack = await new FakeSlack({
  signingSecret,
  botToken,
  channels: Array.from({ length: channels }, (_, index) => [
    { id: `C${String(index).padStart(5, '0')}`, name: `bids-${index}` },
    { id: `B${String(index).padStart(5, '0')}`, name: `bare-${index}` },
  ]).flat(),
  postsPerSecondPerChannel: 1,
}).start();
console.log(
  JSON.stringify({ serviceUrl: sandbox.baseUrl, slackApiUrl: slack.apiUrl, botToken, signingSecret }),
);

for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'count') console.log(JSON.stringify({ messages: slack.messages.length }));
  if (line === 'report') {
    const posts = slack.messages.filter((message) => message.metadata?.event_type === 'tenderbot_delivery');
    const keys = new Map<string, number>();
    for (const message of posts) {
      const key = `${message.metadata.event_payload.delivery_id}/${message.metadata.event_payload.part}`;
      keys.set(key, (keys.get(key) ?? 0) + 1);
    }
    console.log(
      JSON.stringify({
        posts: posts.length,
        subscriptions: new Set(posts.map((message) => message.metadata.event_payload.subscription_id)).size,
        duplicates: [...keys.values()].reduce((sum, count) => sum + count - 1, 0),
        lastPostMs: posts.length > 0 ? Math.max(...posts.map((message) => Number(message.ts) * 1000)) : null,
        rateLimited: slack.rateLimited,
      }),
    );
  }
  if (line === 'sample') {
    const post = slack.messages.find((message) => message.metadata?.event_type === 'tenderbot_delivery');
    console.log(JSON.stringify({ text: post?.text ?? '', blocks: post?.blocks ?? [] }));
  }
  if (line === 'stop') break;
}
await slack.stop();
await sandbox.close();
cleanup();
process.exit(0);
