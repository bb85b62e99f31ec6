import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import Assembler from 'stream-json/assembler.js';
import parser from 'stream-json/parser.js';

/** Something that was read from an OCDS file: one release, and the package's publisher if any. */
export interface OcdsItem {
  release: Record<string, unknown>;
  publisherName: string | null;
}

type Token = { name: string; value?: unknown };

const PACKAGE_ARRAYS = new Set(['releases', 'records']);

/**
 * Streams the releases of an OCDS 1.1 file: a release package, a record package (each record's
 * embedded releases, or its compiled release), JSON Lines of releases, or a JSON array of
 * releases; gzipped or not. Memory stays bounded by the largest single release.
 */
export async function* readOcdsReleases(
  path: string,
  onBytesRead?: (bytes: number) => void,
): AsyncGenerator<OcdsItem> {
  if (await isJsonLines(path)) {
    yield* releasesFromJsonLines(await openMaybeGzipped(path, onBytesRead), path);
    return;
  }
  const input = await openMaybeGzipped(path, onBytesRead);
  const tokens = input.pipe(parser.asStream({ jsonStreaming: true, streamValues: false }));
  yield* releasesFromTokens(tokens as AsyncIterable<Token>);
}

/** A first line longer than this is not a release of JSON Lines; the streaming parser takes over. */
const MAX_FIRST_LINE = 16 * 1024 * 1024;

/**
 * JSON Lines of releases read line by line with JSON.parse, several times faster than the token
 * parser. A file is JSON Lines when its first line alone is a release (an object with an ocid).
 */
async function isJsonLines(path: string): Promise<boolean> {
  const input = await openMaybeGzipped(path);
  let firstLine = '';
  try {
    for await (const chunk of input) {
      const text = chunk.toString('utf8');
      const end = text.indexOf('\n');
      firstLine += end === -1 ? text : text.slice(0, end);
      if (end !== -1 || firstLine.length > MAX_FIRST_LINE) break;
    }
  } finally {
    input.destroy();
  }
  if (firstLine.length > MAX_FIRST_LINE) return false;
  try {
    const value = JSON.parse(firstLine);
    return typeof value === 'object' && value !== null && !Array.isArray(value) && 'ocid' in value;
  } catch {
    return false;
  }
}

async function* releasesFromJsonLines(input: Readable, path: string): AsyncGenerator<OcdsItem> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (line.trim().length === 0) continue;
    let release: unknown;
    try {
      release = JSON.parse(line);
    } catch (error) {
      throw new Error(`${path}, line ${lineNumber}: not valid JSON (${(error as Error).message})`);
    }
    if (isObject(release)) yield { release, publisherName: null };
  }
}

async function openMaybeGzipped(path: string, onBytesRead?: (bytes: number) => void): Promise<Readable> {
  const handle = await open(path, 'r');
  const magic = Buffer.alloc(2);
  await handle.read(magic, 0, 2, 0);
  const raw = handle.createReadStream({ start: 0, autoClose: true });
  if (onBytesRead) {
    let total = 0;
    raw.on('data', (chunk: Buffer | string) => {
      total += chunk.length;
      onBytesRead(total);
    });
  }
  const gzipped = magic[0] === 0x1f && magic[1] === 0x8b;
  if (!gzipped) return raw;
  const gunzip = createGunzip();
  raw.on('error', (error) => gunzip.destroy(error));
  // Closing the gunzip stream early (as the format check does) must close the file too.
  gunzip.on('close', () => raw.destroy());
  return raw.pipe(gunzip);
}

/**
 * The state machine over parser tokens. At the top level an object is either a package (it has a
 * `releases` or `records` array, whose items are assembled one by one) or a release (assembled
 * whole); a top-level array is a list of releases.
 */
export async function* releasesFromTokens(tokens: AsyncIterable<Token>): AsyncGenerator<OcdsItem> {
  let depth = 0;
  let topObject: Record<string, unknown> = {};
  let topKey: string | null = null;
  let isPackage = false;
  let itemsKind: 'releases' | 'records' | null = null;
  let itemsDepth = 0;
  let assembler: Assembler | null = null;
  let assembling: 'item' | 'topValue' = 'item';

  const finishValue = function* (value: unknown): Generator<OcdsItem> {
    if (assembling === 'topValue') {
      if (topKey !== null) topObject[topKey] = value;
      return;
    }
    const publisherName = publisherOf(topObject);
    if (itemsKind === 'records') {
      for (const release of releasesOfRecord(value)) yield { release, publisherName };
    } else if (isObject(value)) {
      yield { release: value, publisherName };
    }
  };

  for await (const token of tokens) {
    if (assembler) {
      assembler.consume(token as never);
      if (assembler.done) {
        const value = assembler.current;
        assembler = null;
        yield* finishValue(value);
      }
      continue;
    }
    const isStart = token.name === 'startObject' || token.name === 'startArray';
    const isValueStart = isStart || token.name.endsWith('Value');
    if (token.name === 'keyValue') {
      topKey = String(token.value);
      continue;
    }
    if (itemsKind !== null && depth === itemsDepth) {
      if (token.name === 'endArray') {
        itemsKind = null;
        depth--;
        continue;
      }
      if (isValueStart) {
        assembling = 'item';
        assembler = startAssembler(token);
        if (assembler.done) {
          const value = assembler.current;
          assembler = null;
          yield* finishValue(value);
        }
      }
      continue;
    }
    if (depth === 0) {
      if (token.name === 'startObject') {
        depth = 1;
        topObject = {};
        topKey = null;
        isPackage = false;
      } else if (token.name === 'startArray') {
        depth = 1;
        topObject = {};
        itemsKind = 'releases';
        itemsDepth = 1;
        isPackage = true;
      }
      continue;
    }
    if (depth === 1) {
      if (token.name === 'endObject') {
        depth = 0;
        if (!isPackage) yield { release: topObject, publisherName: null };
        continue;
      }
      if (token.name === 'startArray' && topKey !== null && PACKAGE_ARRAYS.has(topKey)) {
        isPackage = true;
        itemsKind = topKey as 'releases' | 'records';
        itemsDepth = 2;
        depth = 2;
        continue;
      }
      if (isValueStart) {
        assembling = 'topValue';
        assembler = startAssembler(token);
        if (assembler.done) {
          const value = assembler.current;
          assembler = null;
          yield* finishValue(value);
        }
      }
    }
  }
}

function startAssembler(token: Token): Assembler {
  const assembler = new Assembler();
  assembler.consume(token as never);
  return assembler;
}

function releasesOfRecord(record: unknown): Record<string, unknown>[] {
  if (!isObject(record)) return [];
  const embedded = Array.isArray(record.releases)
    ? record.releases.filter((r) => isObject(r) && 'ocid' in r)
    : [];
  if (embedded.length > 0) return embedded as Record<string, unknown>[];
  return isObject(record.compiledRelease) ? [record.compiledRelease] : [];
}

function publisherOf(packageObject: Record<string, unknown>): string | null {
  const publisher = packageObject.publisher;
  return isObject(publisher) && typeof publisher.name === 'string' ? publisher.name : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
