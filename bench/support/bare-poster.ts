import { Agent, request } from 'undici';

/** What bench:digests' bare poster posts, and where. */
export interface BarePosting {
  /** The fake Slack's Web API base (ends with a slash or not). */
  apiUrl: string;
  token: string;
  channels: readonly string[];
  perChannel: number;
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
 * as the app's (scheduledSlack), each channel's next post a pace after the answer to its last, as
 * the app paces. What it takes is what this machine and the fake Slack allow any app; what
 * Tenderbot takes beyond it is Tenderbot's.
 */
export async function postAtSlacksPace(posting: BarePosting): Promise<BarePosterFigures> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 });
  const url = `${posting.apiUrl.endsWith('/') ? posting.apiUrl : `${posting.apiUrl}/`}chat.postMessage`;
  // A timer counts from the event loop's time, which a busy turn leaves behind the clock: it can
  // fire early by the clock, so the time is looked at again (as the app's waitForSlot does).
  const sleepUntil = async (at: number) => {
    while (Date.now() < at) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
  };
  const latenessByPlaceMs: number[][] = Array.from({ length: posting.perChannel }, () => []);
  let refused = 0;
  let posts = 0;
  let lastAnswer = 0;
  const dueAt = Date.now() + 500;
  try {
    await Promise.all(
      posting.channels.map(async (channel) => {
        let slot = dueAt;
        for (let place = 0; place < posting.perChannel; place++) {
          await sleepUntil(slot);
          latenessByPlaceMs[place]?.push(Date.now() - (dueAt + place * posting.paceMs));
          const answer = await request(url, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${posting.token}`,
              'content-type': 'application/json; charset=utf-8',
            },
            body: JSON.stringify({ channel, text: posting.message.text, blocks: posting.message.blocks }),
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
