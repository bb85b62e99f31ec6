import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import parser from 'stream-json/parser.js';
import { afterAll, describe, expect, it } from 'vitest';
import { readOcdsReleases, releasesFromTokens } from '../../../src/service/import/ocds-reader.ts';
import { OCDS_DIR } from '../../support/ocds-data.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The first real releases of the UK file, to wrap in each format OCDS allows. */
const releases = gunzipSync(readFileSync(join(OCDS_DIR, 'uk-notices.releases.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .filter((line) => line.length > 0)
  .slice(0, 5)
  .map((line) => JSON.parse(line) as { ocid: string; id: string });

async function collect(path: string) {
  const items = [];
  for await (const item of readOcdsReleases(path)) items.push(item);
  return items;
}

const publisher = { name: 'Cabinet Office' };

describe('reading OCDS files', () => {
  it('reads a release package, pretty-printed or not, gzipped or not, with its publisher', async () => {
    const body = {
      uri: 'https://example.org/p',
      publisher,
      publishedDate: '2025-01-23T22:10:19Z',
      version: '1.1',
      releases,
    };
    const cases: [string, Buffer | string][] = [
      ['package.json', JSON.stringify(body, null, 2)],
      ['package-compact.json', JSON.stringify(body)],
      ['package.json.gz', gzipSync(JSON.stringify(body, null, 2))],
    ];
    for (const [name, content] of cases) {
      writeFileSync(join(dir, name), content);
      const items = await collect(join(dir, name));
      expect(
        items.map((item) => item.release.id),
        name,
      ).toEqual(releases.map((release) => release.id));
      expect(
        items.every((item) => item.publisherName === 'Cabinet Office'),
        name,
      ).toBe(true);
    }
  });

  it('reads a record package: embedded releases, else the compiled release', async () => {
    const records = [
      { ocid: releases[0]?.ocid, releases: [releases[0], releases[1]] },
      {
        ocid: releases[2]?.ocid,
        releases: [{ url: 'https://example.org/r.json', date: '2025-01-01T00:00:00Z' }],
        compiledRelease: releases[2],
      },
    ];
    writeFileSync(join(dir, 'records.json'), JSON.stringify({ publisher, version: '1.1', records }));
    const items = await collect(join(dir, 'records.json'));
    expect(items.map((item) => item.release.id)).toEqual([releases[0]?.id, releases[1]?.id, releases[2]?.id]);
  });

  it('reads JSON Lines (with blank lines and CRLF) and a bare array of releases', async () => {
    writeFileSync(
      join(dir, 'lines.jsonl'),
      `${releases.map((release) => JSON.stringify(release)).join('\r\n')}\r\n\r\n`,
    );
    expect((await collect(join(dir, 'lines.jsonl'))).map((item) => item.release.id)).toEqual(
      releases.map((r) => r.id),
    );
    writeFileSync(join(dir, 'array.json'), JSON.stringify(releases, null, 1));
    expect((await collect(join(dir, 'array.json'))).map((item) => item.release.id)).toEqual(
      releases.map((r) => r.id),
    );
  });

  it('says which line of a JSON Lines file is broken', async () => {
    writeFileSync(join(dir, 'broken.jsonl'), `${JSON.stringify(releases[0])}\n{"ocid": "x",\n`);
    await expect(collect(join(dir, 'broken.jsonl'))).rejects.toThrow(/line 2/);
  });

  it('streams: the first release of a package arrives before the rest of the file exists', async () => {
    const input = new PassThrough();
    const tokens = input.pipe(parser.asStream({ jsonStreaming: true, streamValues: false }));
    const iterator = releasesFromTokens(tokens as never)[Symbol.asyncIterator]();
    input.write(`{"publisher":{"name":"P"},"releases":[${JSON.stringify(releases[0])},`);
    const first = await iterator.next();
    expect(first.value?.release.id).toBe(releases[0]?.id);
    // Only now does the rest arrive; a reader that buffered the file would not have answered above.
    input.end(`${JSON.stringify(releases[1])}]}`);
    expect((await iterator.next()).value?.release.id).toBe(releases[1]?.id);
    expect((await iterator.next()).done).toBe(true);
  });
});
