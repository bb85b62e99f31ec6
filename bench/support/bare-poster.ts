import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';

/** What bench:digests' bare poster posts, and where. */
export interface BarePosting {
  /** The fake Slack's Web API base (ends with a slash or not). */
  apiUrl: string;
  token: string;
  /** Each channel and how many posts it takes (as many as Tenderbot's channel of the same place). */
  channels: readonly { id: string; posts: number }[];
  /** One post as Tenderbot sent it (text and blocks), posted as it is every time. */
  message: { text: string; blocks: unknown[] };
  paceMs: number;
}

/** How the bare poster did: the same interval as Tenderbot's, due time to the last answer. */
export interface BarePosterFigures {
  totalSeconds: number;
  posts: number;
  refused: number;
  /** Each post's lateness against its slot (due + k × pace), by its place in its channel. */
  latenessByPlaceMs: number[][];
}

/**
 * bench:digests' same-run floor: the posts of a burst sent at Slack's pace by a loop that does
 * nothing else (no store, no content, no lease), through a keep-alive pool of as many connections
 * as one copy of the app has (scheduledSlack), each channel's next post a pace after the answer to
 * its last, as the app paces. What it takes is what this machine and the fake Slack allow an app
 * that posts as Tenderbot does; what Tenderbot takes beyond it is Tenderbot's. (Its time ends at
 * its last answer; Tenderbot's when the benchmark's 20 ms poll sees the last post recorded.)
 */
export async function postAtSlacksPace(posting: BarePosting): Promise<BarePosterFigures> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  const url = `${posting.apiUrl.endsWith('/') ? posting.apiUrl : `${posting.apiUrl}/`}chat.postMessage`;
  // A timer counts from the event loop's time, which a busy turn leaves behind the clock: it can
  // fire early by the clock, so the time is looked at again (as the app's waitForSlot does).
  const sleepUntil = async (at: number) => {
    while (Date.now() < at) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
  };
  const places = Math.max(0, ...posting.channels.map((channel) => channel.posts));
  const latenessByPlaceMs: number[][] = Array.from({ length: places }, () => []);
  let refused = 0;
  let posts = 0;
  let lastAnswer = 0;
  const dueAt = Date.now() + 500;
  try {
    await Promise.all(
      posting.channels.map(async (channel) => {
        let slot = dueAt;
        for (let place = 0; place < channel.posts; place++) {
          await sleepUntil(slot);
          latenessByPlaceMs[place]?.push(Date.now() - (dueAt + place * posting.paceMs));
          const answer = await request(url, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${posting.token}`,
              'content-type': 'application/json; charset=utf-8',
            },
            // As the app's post is (bodies of the same size): its metadata and unfurl settings too.
            body: JSON.stringify({
              channel: channel.id,
              text: posting.message.text,
              blocks: posting.message.blocks,
              unfurl_links: false,
              unfurl_media: false,
              metadata: {
                event_type: 'bench_bare_post',
                event_payload: {
                  delivery_id: randomUUID(),
                  part: 0,
                  subscription_id: `s-${channel.id}-${place}`,
                },
              },
            }),
            dispatcher: agent,
          });
          const body = (await answer.body.json()) as { ok?: boolean };
          if (answer.statusCode !== 200 || !body.ok) refused++;
          else posts++;
          lastAnswer = Date.now();
          slot = lastAnswer + posting.paceMs;
        }
      }),
    );
  } finally {
    await agent.close();
  }
  return { totalSeconds: (lastAnswer - dueAt) / 1000, posts, refused, latenessByPlaceMs };
}
