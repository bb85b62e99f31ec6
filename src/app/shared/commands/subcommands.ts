/** The first word of `/tender …`: which feature answers, and the subcommand meant by a mistyped one. */
import { rankNearest } from './edit-distance.ts';
import { looksLikeTenderId } from './parse-command.ts';
import { normaliseTyped } from './typed-text.ts';

export const SUBCOMMANDS = [
  'search',
  'show',
  'bookmarks',
  'buyers',
  'suppliers',
  'frameworks',
  'saved',
  'comments',
  'pipelines',
  'pipeline',
  'subscribe',
  'subscriptions',
  'unsubscribe',
  'connect',
  'disconnect',
  'status',
  'settings',
  'help',
] as const;

export type Subcommand = (typeof SUBCOMMANDS)[number];

/** Words the product says elsewhere for a subcommand: bids are what the cards and forms call pipelines. */
const ALIASES: Readonly<Record<string, Subcommand>> = { bids: 'pipelines', bid: 'pipeline' };

export type ParsedCommand =
  | { kind: Subcommand; rest: string }
  | { kind: 'show'; rest: string }
  /** A first word that is no subcommand; `rest` is what followed it (to offer the command meant). */
  | { kind: 'unknown'; word: string; rest: string };

/** `/tender search cleaning`, `/tender ocds-b5fd17-…` (an id alone shows it), `/tender` (help). */
export function parseCommand(text: string): ParsedCommand {
  const trimmed = normaliseTyped(text).trim();
  if (trimmed === '') return { kind: 'help', rest: '' };
  const [first = '', ...others] = trimmed.split(/\s+/);
  const word = first.toLowerCase();
  const rest = trimmed.slice(first.length).trim();
  if ((SUBCOMMANDS as readonly string[]).includes(word)) return { kind: word as Subcommand, rest };
  const alias = ALIASES[word];
  if (alias) return { kind: alias, rest };
  if (others.length === 0 && looksLikeTenderId(first)) return { kind: 'show', rest: first };
  return { kind: 'unknown', word: first, rest };
}

/**
 * The subcommand a mistyped first word most likely meant (`serach` → `search`): the nearest by edit
 * distance, when it is near enough for the word's length (one edit up to four letters, two beyond)
 * and no other subcommand is as near; null otherwise.
 */
export function subcommandMeant(word: string): Subcommand | null {
  const typed = word.toLowerCase();
  if (typed.length < 3 || !/^[a-z]+$/.test(typed)) return null;
  const [best, second] = rankNearest(typed, SUBCOMMANDS, (known) => known);
  if (!best || best.distance === 0 || best.distance > (typed.length <= 4 ? 1 : 2)) return null;
  // `pipeline`/`pipelines`, `subscribe`/`subscriptions`: a tie is not a guess worth offering.
  if (second && second.distance === best.distance && second.plain === best.plain) return null;
  return best.item;
}

/**
 * Whether `text` is the `kind` subcommand: parseCommand's answer, read from the first word only
 * (its length and one character more), since the receiver asks it of every command it hands over,
 * whatever its length. Not for help and show, which parseCommand also gives to empty text and to a
 * tender id alone.
 */
export function isSubcommand(text: string, kind: Exclude<Subcommand, 'help' | 'show'>): boolean {
  const start = text.search(/\S/);
  return start >= 0 && parseCommand(text.slice(start, start + kind.length + 1)).kind === kind;
}
