import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { StandInApp } from './stand-in-app.ts';

// What Work Objects need of the fake Slack: chat.unfurl's metadata.entities checked and kept,
// entity_details_requested sent on a click, and entity.presentDetails checked against its trigger.
const TOKEN = 'xoxb-fake-work-objects';
const SECRET = 'fake-work-objects-secret';
const URL_A = 'https://tenders.example.gov.uk/notice/1';

const app = new StandInApp(SECRET);
let slack: FakeSlack;
let web: WebClient;

beforeAll(async () => {
  const appUrl = await app.start();
  slack = await new FakeSlack({ signingSecret: SECRET, botToken: TOKEN, appUrl }).start();
  web = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
beforeEach(() => {
  app.received.length = 0;
  slack.workObjects.enabled = true;
});
afterAll(async () => {
  await slack.stop();
  await app.stop();
});

function entity(overrides: Record<string, unknown> = {}) {
  return {
    entity_type: 'slack#/entities/item',
    url: 'https://service.example/v1/tenders/1',
    app_unfurl_url: URL_A,
    external_ref: { id: 'ocds-1', type: 'tender' },
    entity_payload: {
      attributes: { title: { text: 'Cleaning' } },
      custom_fields: [{ key: 'status', label: 'Status', type: 'string', value: 'Active' }],
    },
    ...overrides,
  };
}

/** chat.unfurl with entities only, as the app sends it (the SDK's types take unfurls or metadata). */
function unfurlWith(ts: string, entities: unknown[]) {
  return web.apiCall('chat.unfurl', { channel: 'C0BIDS', ts, metadata: { entities } });
}

describe('chat.unfurl with metadata.entities', () => {
  it('keeps well-formed entities on the message, one per link', async () => {
    const message = slack.postAsUser('U0MEMBER', 'C0BIDS', `See <${URL_A}>`);
    await unfurlWith(message.ts, [entity()]);
    await unfurlWith(message.ts, [
      entity({ entity_payload: { attributes: { title: { text: 'Renamed' } } } }),
    ]);
    const kept = slack.workObjects.entitiesOf(message);
    expect(kept).toHaveLength(1);
    expect(kept[0]?.entity_payload.attributes.title.text).toBe('Renamed');
    expect(message.unfurls).toBeUndefined();
  });

  it('refuses malformed entities, links not in the message, and a workspace without Work Objects', async () => {
    const message = slack.postAsUser('U0MEMBER', 'C0BIDS', `See <${URL_A}>`);
    for (const bad of [
      entity({ entity_type: 'slack#/entities/tender' }),
      entity({ external_ref: {} }),
      entity({ url: undefined }),
      entity({ app_unfurl_url: undefined }),
      entity({ entity_payload: { attributes: {} } }),
      entity({ entity_payload: { attributes: { title: { text: 'x' } }, custom_fields: [{ key: 'k' }] } }),
    ])
      await expect(unfurlWith(message.ts, [bad])).rejects.toThrow(/invalid_metadata/);
    await expect(unfurlWith(message.ts, [])).rejects.toThrow(/invalid_metadata/);
    await expect(
      unfurlWith(message.ts, [entity({ app_unfurl_url: 'https://elsewhere.example/' })]),
    ).rejects.toThrow(/cannot_unfurl_url/);
    slack.workObjects.enabled = false;
    await expect(unfurlWith(message.ts, [entity()])).rejects.toThrow(/feature_not_enabled/);
    expect(slack.workObjects.entitiesOf(message)).toEqual([]);
  });
});

describe('the flexpane', () => {
  it('sends entity_details_requested and takes entity.presentDetails for that trigger once', async () => {
    const message = slack.postAsUser('U0MEMBER', 'C0BIDS', `See <${URL_A}>`);
    await unfurlWith(message.ts, [entity()]);
    const { presented } = await slack.workObjects.openFlexpane('U0ADMIN', message, URL_A);
    const [event] = app.events('entity_details_requested');
    expect(event).toMatchObject({
      type: 'entity_details_requested',
      user: 'U0ADMIN',
      external_ref: { id: 'ocds-1', type: 'tender' },
      entity_url: 'https://service.example/v1/tenders/1',
      app_unfurl_url: URL_A,
      channel: 'C0BIDS',
      message_ts: message.ts,
    });
    const trigger = event.trigger_id as string;

    await expect(web.entity.presentDetails({ trigger_id: 'made-up' })).rejects.toThrow(/invalid_trigger_id/);
    await expect(web.entity.presentDetails({ trigger_id: trigger })).rejects.toThrow(/invalid_arguments/);
    await expect(
      web.entity.presentDetails({ trigger_id: trigger, error: { status: 'nope' } }),
    ).rejects.toThrow(/invalid_arguments/);
    await expect(
      web.entity.presentDetails({
        trigger_id: trigger,
        metadata: { ...entity(), external_ref: { id: 'other' } },
      }),
    ).rejects.toThrow(/entity_metadata_does_not_match_trigger/);
    await web.entity.presentDetails({
      trigger_id: trigger,
      error: { status: 'custom', custom_title: 'No', custom_message: 'Not yours.' },
    });
    expect(await presented).toMatchObject({
      userId: 'U0ADMIN',
      error: { status: 'custom', custom_message: 'Not yours.' },
    });
    // Used once: a second answer to the same click is refused.
    await expect(
      web.entity.presentDetails({ trigger_id: trigger, error: { status: 'not_found' } }),
    ).rejects.toThrow(/invalid_trigger_id/);
  });
});
