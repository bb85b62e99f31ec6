import { BOT_USER_ID, type FakeSlack, type FakeUser } from '../fake-slack/fake-slack.ts';
import { cutText } from '../shared/cut-text.ts';

/** Slack's own commands that the workbench answers itself, as Slack does (no app hears of them). */
export const BUILT_IN_COMMANDS = ['/invite', '/remove', '/kick'] as const;

/** Tenderbot's name as people type it after `@` (Slack matches it whatever the letter case). */
const APP_NAME = 'tenderbot';

type Someone = { kind: 'app' } | { kind: 'person'; user: FakeUser };

/**
 * `/invite @Tenderbot` and `/remove @Tenderbot` (`/kick` is Slack's other name for /remove): the
 * app joins or leaves the channel as through the channel's own buttons, so it gets
 * `member_joined_channel` or `channel_left`. People can be named too. What Slack says back is
 * said by Slackbot to the person alone; a guest may not do either, as in Slack.
 */
export async function runBuiltInCommand(
  slack: FakeSlack,
  userId: string,
  channel: string,
  command: string,
  text: string,
  appInstalled: boolean,
): Promise<void> {
  const say = (sentence: string) => slack.postAsSlackbot(userId, channel, sentence);
  const inviting = command === '/invite';
  const verb = inviting ? 'invite' : 'remove';
  const place = slack.channels.find((item) => item.id === channel);
  if (!place) return void say(`\`${command}\` works in a channel, not in a direct message.`);
  if (slack.isArchived(channel)) return void say('This channel is archived: no one can join or leave it.');
  const me = slack.user(userId);
  if (me.isRestricted || me.isUltraRestricted)
    return void say(`Guests can’t ${verb} anyone here: ask a member of the channel.`);
  const names = text.split(/[\s,]+/).filter(Boolean);
  if (names.length === 0)
    return void say(
      inviting
        ? 'Name who to invite, for example `/invite @Tenderbot`.'
        : 'Name who to remove, for example `/remove @Tenderbot`.',
    );
  for (const name of names) {
    const someone = whoIs(slack, name);
    if (!someone) {
      say(`No one in this workspace is called ${plainName(name)}.`);
      continue;
    }
    if (someone.kind === 'app') await inviteOrRemoveApp(slack, channel, userId, inviting, appInstalled, say);
    else inviteOrRemovePerson(slack, channel, someone.user, inviting, say);
  }
}

async function inviteOrRemoveApp(
  slack: FakeSlack,
  channel: string,
  userId: string,
  inviting: boolean,
  appInstalled: boolean,
  say: (sentence: string) => void,
): Promise<void> {
  const here = `<#${channel}>`;
  if (!appInstalled)
    return void say(
      'Tenderbot is not installed in this workspace yet. *Add Tenderbot to this workspace*, on the left, installs it; then invite it here.',
    );
  if (inviting) {
    if (slack.isAppIn(channel)) return void say(`Tenderbot is already in ${here}.`);
    say(`You added Tenderbot to ${here}.`);
    await slack.addApp(channel, userId);
    return;
  }
  if (!slack.isAppIn(channel)) return void say(`Tenderbot is not in ${here}.`);
  say(`You removed Tenderbot from ${here}.`);
  await slack.removeApp(channel, userId);
}

function inviteOrRemovePerson(
  slack: FakeSlack,
  channel: string,
  user: FakeUser,
  inviting: boolean,
  say: (sentence: string) => void,
): void {
  const here = `<#${channel}>`;
  const member = slack.isMember(channel, user.id);
  if (inviting) {
    if (member) return void say(`<@${user.id}> is already in ${here}.`);
    slack.addMember(channel, user.id);
    return void say(`You added <@${user.id}> to ${here}.`);
  }
  if (!member) return void say(`<@${user.id}> is not in ${here}.`);
  slack.removeMember(channel, user.id);
  say(`You removed <@${user.id}> from ${here}.`);
}

/** `@Tenderbot`, `@max`, a mention as Slack writes it (`<@U0BOT>`), or a bare name. */
function whoIs(slack: FakeSlack, typed: string): Someone | null {
  const id = /^<@([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(typed)?.[1];
  const name = typed.replace(/^@/, '').toLowerCase();
  if (id === BOT_USER_ID || (!id && name === APP_NAME)) return { kind: 'app' };
  const user = slack.users.find((candidate) =>
    id ? candidate.id === id : candidate.name.toLowerCase() === name || candidate.id.toLowerCase() === name,
  );
  return user ? { kind: 'person', user } : null;
}

/** A typed name shown back as text, never as markup. */
function plainName(name: string): string {
  const shown = cutText(name, 41, '…');
  return `\`${shown.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/`/g, "'")}\``;
}
