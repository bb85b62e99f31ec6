import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { addWorkbenchRoutes } from '../../src/workbench/workbench-routes.ts';

// The page's API acts as whoever the body names, so only the page itself may call it.
let slack: FakeSlack;
let origin: string;

beforeAll(async () => {
  slack = new FakeSlack({ signingSecret: 'secret', botToken: 'xoxb-test' });
  addWorkbenchRoutes(slack);
  await slack.start(0);
  origin = slack.apiUrl.replace(/\/api\/$/, '');
});

afterAll(async () => {
  await slack.stop();
});

/** A plain message typed on the page: it needs no app behind the fake Slack, and leaves a trace. */
async function post(text: string, headers: Record<string, string>, body?: string) {
  const response = await request(`${origin}/workbench/command`, {
    method: 'POST',
    headers,
    body: body ?? JSON.stringify({ user: 'U0ADMIN', channel: 'C0BIDS', text }),
  });
  return { status: response.statusCode, json: (await response.body.json()) as { error?: string } };
}

const posted = (text: string) => slack.messagesIn('C0BIDS').filter((message) => message.text === text);

describe('the workbench API', () => {
  it('acts for its own page: same origin, JSON', async () => {
    const answer = await post('hello from the page', {
      origin,
      'content-type': 'application/json',
      'sec-fetch-site': 'same-origin',
    });
    expect(answer.status).toBe(200);
    expect(posted('hello from the page')).toHaveLength(1);
  });

  it('refuses a cross-site form post, even one whose text/plain body reads as JSON', async () => {
    const text = 'forged by a form';
    // <form enctype="text/plain"> with a field named `{"user":…,"x":"` and value `"}` sends this.
    const body = `${JSON.stringify({ user: 'U0ADMIN', channel: 'C0BIDS', text, x: '' }).slice(0, -2)}="}`;
    const answer = await post(
      text,
      { origin: 'http://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      body,
    );
    expect(answer.status).toBe(403);
    expect(posted(text)).toEqual([]);
  });

  it('refuses JSON from another origin, another site of the same host, or with no origin at all', async () => {
    const attempts: Record<string, string>[] = [
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://localhost:1', 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
      {},
    ];
    for (const headers of attempts) {
      const answer = await post('forged', { ...headers, 'content-type': 'application/json' });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
    }
    expect(posted('forged')).toEqual([]);
  });

  it('refuses a same-origin request that is not JSON', async () => {
    const answer = await post('not json', { origin, 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(posted('not json')).toEqual([]);
  });

  it('refuses another host name pointed at it (DNS rebinding), for reads too', async () => {
    const state = await request(`${origin}/workbench/state?user=U0ADMIN`, {
      headers: { host: 'attacker.example' },
    });
    expect(state.statusCode).toBe(403);
    await state.body.dump();
    const answer = await post('rebound', {
      host: 'attacker.example',
      origin: 'http://attacker.example',
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(403);
    expect(posted('rebound')).toEqual([]);
  });

  it('refuses cross-site reads, and serves its own page and an address typed in the browser', async () => {
    const read = (site: string) =>
      request(`${origin}/workbench/state?user=U0ADMIN`, { headers: { 'sec-fetch-site': site } });
    const crossSite = await read('cross-site');
    expect(crossSite.statusCode).toBe(403);
    await crossSite.body.dump();
    for (const site of ['same-origin', 'none']) {
      const allowed = await read(site);
      expect(allowed.statusCode, site).toBe(200);
      const state = (await allowed.body.json()) as { me: { id: string } };
      expect(state.me.id).toBe('U0ADMIN');
    }
  });

  it('answers a broken or mistyped body with 400, never a failure', async () => {
    const headers = { origin, 'content-type': 'application/json' };
    for (const body of ['{', 'null', '[]', '42', JSON.stringify({ user: 'U0ADMIN', text: 42 })]) {
      const answer = await post('', headers, body);
      expect(answer.status, body).toBe(400);
      expect(answer.json.error).toBeTruthy();
    }
  });
});
