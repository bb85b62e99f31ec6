/**
 * One token of a typed command: a filter (`key:value`, `key>value`, a quoted value), a quoted
 * phrase, or a word (group 6). The parsers and the reading of a region's words split alike.
 */
export const TOKEN = /([A-Za-z]+)(:|>=|<=|>|<)("([^"]*)"|\S+)|"([^"]*)"|(\S+)/g;
