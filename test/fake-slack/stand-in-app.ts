import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { slackSignature } from '../../src/fake-slack/signing.ts';

/** What a stand-in app received: the body parsed (an event, or an interactivity payload). */
export interface Received {
  // biome-ignore lint/suspicious/noExplicitAny: Slack's loose JSON, as received.
  json: any;
  valid: boolean;
  contentType: string;
}

/**
 * A stand-in for the app: checks each request's signature, keeps what arrived, and answers with
 * `answer(received)` (an empty 200 unless told otherwise), so a test sees exactly what the fake
 * Slack sends.
 */
export class StandInApp {
  readonly received: Received[] = [];
  answer: (received: Received) => unknown = () => null;
  private server: Server | null = null;

  constructor(private readonly secret: string) {}

  async start(): Promise<string> {
    this.server = createServer(async (incoming, outgoing) => {
      let body = '';
      for await (const chunk of incoming) body += chunk;
      const timestamp = String(incoming.headers['x-slack-request-timestamp']);
      const contentType = String(incoming.headers['content-type']);
      // JSON (an event), a form with a `payload` (interactivity), or a plain form (a slash command).
      const form = new URLSearchParams(body);
      const payload = form.get('payload');
      const json = contentType.startsWith('application/json')
        ? JSON.parse(body)
        : payload !== null
          ? JSON.parse(payload)
          : Object.fromEntries(form);
      const received = {
        json,
        valid: incoming.headers['x-slack-signature'] === slackSignature(this.secret, timestamp, body),
        contentType,
      };
      this.received.push(received);
      const answer = this.answer(received);
      outgoing.writeHead(200, { 'content-type': 'application/json' });
      outgoing.end(answer === null ? '' : JSON.stringify(answer));
    });
    await new Promise<void>((ready) => this.server?.listen(0, '127.0.0.1', ready));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/slack/events`;
  }

  /** Events received (`event_callback`), their inner events, oldest first. */
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  events(type?: string): any[] {
    return this.received
      .filter((item) => item.json?.type === 'event_callback')
      .map((item) => item.json.event)
      .filter((event) => !type || event.type === type);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
  }
}
