/** The shapes every Web API method of the fake shares: loose JSON arguments and answers. */

// biome-ignore lint/suspicious/noExplicitAny: Web API arguments are loose JSON.
export type Args = Record<string, any>;
export type WebAnswer = Record<string, unknown>;
