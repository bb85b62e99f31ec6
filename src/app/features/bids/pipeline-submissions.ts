import { z } from 'zod';
import { CalendarDate } from '../../../contract/schemas.ts';
import { isBlank } from '../../../contract/visible-text.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { type PlainSentence, plainSentence } from '../../shared/views/plain-sentence.ts';

/**
 * The pipelines feature's modal submissions, read from `view.state.values` by one schema per
 * modal (as src/app/shared/values/modal-submissions.ts does for the connect modal). Anything unreadable
 * reads as empty, which the checks below then ask for.
 */
const textOf = (actionId: string) =>
  z
    .object({ [actionId]: z.object({ value: z.string().nullish() }).loose().optional() })
    .loose()
    .optional()
    .transform((block) => (block?.[actionId] as { value?: string | null } | undefined)?.value ?? '');

const dateOf = (actionId: string) =>
  z
    .object({ [actionId]: z.object({ selected_date: z.string().nullish() }).loose().optional() })
    .loose()
    .optional()
    .transform(
      (block) => (block?.[actionId] as { selected_date?: string | null } | undefined)?.selected_date ?? null,
    );

const StartBidSubmission = z
  .object({
    [PipelineIds.nameBlock]: textOf(PipelineIds.nameInput),
    [PipelineIds.summaryBlock]: textOf(PipelineIds.summaryInput),
    [PipelineIds.targetBlock]: dateOf(PipelineIds.targetInput),
    [PipelineIds.stagesBlock]: textOf(PipelineIds.stagesInput),
  })
  .loose();

export interface StartBidSubmitted {
  name: string;
  summary: string;
  targetDate: string | null;
  stages: string;
}

export function parseStartBidSubmission(values: unknown): StartBidSubmitted {
  const parsed = StartBidSubmission.safeParse(values ?? {});
  if (!parsed.success) return { name: '', summary: '', targetDate: null, stages: '' };
  const data = parsed.data as Record<string, string | null>;
  return {
    name: data[PipelineIds.nameBlock] ?? '',
    summary: data[PipelineIds.summaryBlock] ?? '',
    targetDate: data[PipelineIds.targetBlock] ?? null,
    stages: data[PipelineIds.stagesBlock] ?? '',
  };
}

const NotesSubmission = z
  .object({
    [PipelineIds.notesBlock]: textOf(PipelineIds.notesInput),
    [PipelineIds.dueBlock]: dateOf(PipelineIds.dueInput),
  })
  .loose();

/**
 * The notes form's fields. `notes` is undefined when the form had no notes field (notes longer than
 * it holds, left out so that they stay as they are).
 */
export function parseNotesSubmission(values: unknown): { notes: string | undefined; dueDate: string | null } {
  const parsed = NotesSubmission.safeParse(values ?? {});
  if (!parsed.success) return { notes: '', dueDate: null };
  const data = parsed.data as Record<string, string | null>;
  const hadNotes = typeof values === 'object' && values !== null && PipelineIds.notesBlock in values;
  return {
    notes: hadNotes ? (data[PipelineIds.notesBlock] ?? '') : undefined,
    dueDate: data[PipelineIds.dueBlock] ?? null,
  };
}

/**
 * What each field of a submitted form opened with, by block id (Slack sends the view's blocks back
 * with its submission): its text or date, '' for a field that opened empty; null when the view
 * carries no blocks to read (the submission is then taken as all changed).
 */
export function openedFields(blocks: unknown): Map<string, string> | null {
  if (!Array.isArray(blocks)) return null;
  const opened = new Map<string, string>();
  for (const block of blocks) {
    const {
      block_id: blockId,
      type,
      element,
    } = (block ?? {}) as {
      block_id?: unknown;
      type?: unknown;
      element?: { initial_value?: unknown; initial_date?: unknown };
    };
    if (type !== 'input' || typeof blockId !== 'string') continue;
    const value = element?.initial_value ?? element?.initial_date;
    opened.set(blockId, typeof value === 'string' ? value : '');
  }
  return opened;
}

/** What the notes form opened with: the notes (undefined when unknown) and the due date. */
export function openedNotesFields(blocks: unknown): { notes: string | undefined; dueDate: string | null } {
  const opened = openedFields(blocks);
  return {
    notes: opened ? (opened.get(PipelineIds.notesBlock) ?? '') : undefined,
    dueDate: opened?.get(PipelineIds.dueBlock) || null,
  };
}

const EditBidSubmission = z
  .object({
    [PipelineIds.nameBlock]: textOf(PipelineIds.nameInput),
    [PipelineIds.targetBlock]: dateOf(PipelineIds.targetInput),
  })
  .loose();

export interface EditBidSubmitted {
  name: string;
  /** Undefined when the form had no summary field (a summary longer than it holds). */
  summary: string | undefined;
  targetDate: string | null;
  /** By stage number: what each stage's field holds. */
  stageNames: string[];
}

/** The edit form's fields; `stageCount` inputs of stage names, by number (`…/1`, `…/2`). */
export function parseEditBidSubmission(values: unknown, stageCount: number): EditBidSubmitted {
  const parsed = EditBidSubmission.safeParse(values ?? {});
  const data = (parsed.success ? parsed.data : {}) as Record<string, unknown>;
  const summary = textOf(PipelineIds.summaryInput).safeParse(data[PipelineIds.summaryBlock]);
  const stageNames = Array.from({ length: stageCount }, (_, index) => {
    const field = textOf(PipelineIds.editStageInput).safeParse(
      data[`${PipelineIds.editStageBlock}/${index + 1}`],
    );
    return field.success ? field.data : '';
  });
  return {
    name: typeof data[PipelineIds.nameBlock] === 'string' ? (data[PipelineIds.nameBlock] as string) : '',
    summary: PipelineIds.summaryBlock in data && summary.success ? summary.data : undefined,
    targetDate:
      typeof data[PipelineIds.targetBlock] === 'string' ? (data[PipelineIds.targetBlock] as string) : null,
    stageNames,
  };
}

/** The edit form's fields checked: a sentence for each field that is wrong, or none. */
export function checkEditBid(fields: EditBidSubmitted): Record<string, PlainSentence> {
  const errors: Record<string, PlainSentence> = {};
  const name = fields.name.trim();
  if (isBlank(name)) errors[PipelineIds.nameBlock] = plainSentence`Give the bid a name.`;
  else if (name.length > 200)
    errors[PipelineIds.nameBlock] = plainSentence`A bid’s name holds 200 characters at most.`;
  if ((fields.summary ?? '').length > 3000)
    errors[PipelineIds.summaryBlock] = plainSentence`The summary holds 3,000 characters at most.`;
  if (!isDay(fields.targetDate))
    errors[PipelineIds.targetBlock] = plainSentence`Pick the date from the calendar.`;
  const seen = new Map<string, number>();
  fields.stageNames.forEach((raw, index) => {
    const block = `${PipelineIds.editStageBlock}/${index + 1}`;
    const stageName = raw.trim();
    if (isBlank(stageName)) errors[block] = plainSentence`Give stage ${index + 1} a name.`;
    else if (stageName.length > 200)
      errors[block] = plainSentence`A stage name holds 200 characters at most.`;
    else {
      const same = seen.get(stageName.toLowerCase());
      if (same !== undefined)
        errors[block] = plainSentence`Stage ${same} has this name too; give each stage its own name.`;
      else seen.set(stageName.toLowerCase(), index + 1);
    }
  });
  return errors;
}

/**
 * A stage's length as people write it after the bar: `5`, `5d`, `5 days`, `1 day`, `2w`,
 * `2 weeks` (seven days each); null for anything else.
 */
function stageDays(typed: string): number | null {
  const match = /^(\d+)\s*(d|days?|w|wks?|weeks?)?$/i.exec(typed);
  if (!match?.[1]) return null;
  return Number(match[1]) * ((match[2] ?? 'd').toLowerCase().startsWith('w') ? 7 : 1);
}

export interface StageLine {
  name: string;
  expectedDurationDays: number | null;
}

/**
 * The stages typed one a line, `name | days`: each problem is a sentence naming the line, so it
 * shows on the field. Empty lines are skipped.
 */
export function parseStageLines(text: string): { stages: StageLine[] } | { problem: PlainSentence } {
  const stages: StageLine[] = [];
  // Every line's problem at once, so a long list is mended in one go, not one line a submission.
  const problems: string[] = [];
  /** Stage names seen (any case) and the line each was on: two stages of one name cannot be told apart. */
  const named = new Map<string, number>();
  /** Lines whose length after the bar is not a number of days, and lines over the longest stage. */
  const notDays: number[] = [];
  const tooLong: number[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (isBlank(line)) continue;
    const number = index + 1;
    const bar = line.lastIndexOf('|');
    const name = (bar === -1 ? line : line.slice(0, bar)).trim();
    const days = bar === -1 ? '' : line.slice(bar + 1).trim();
    if (isBlank(name)) {
      problems.push(`Line ${number} has no stage name before the bar.`);
      continue;
    }
    if (name.length > 200) problems.push(`Line ${number}: a stage name holds 200 characters at most.`);
    const same = named.get(name.toLowerCase());
    if (same !== undefined)
      problems.push(
        `Line ${number}: “${cutText(name, 60)}” is the name of line ${same} too; give each stage its own name.`,
      );
    else named.set(name.toLowerCase(), number);
    const count = stageDays(days);
    if (days && count === null) notDays.push(number);
    else if (count !== null && count > 3650) tooLong.push(number);
    stages.push({ name, expectedDurationDays: count });
  }
  // One sentence for every line with the same mistake, not the same sentence again for each.
  if (notDays.length > 0)
    problems.push(
      `${linesNamed(notDays)}: after the bar, give the stage’s length as a whole number of days, such as “Draft response | 5”.`,
    );
  if (tooLong.length > 0) problems.push(`${linesNamed(tooLong)}: a stage lasts 3,650 days at most.`);
  if (stages.length > 50)
    problems.push(`A bid holds 50 stages at most; there are ${stages.length.toLocaleString('en-GB')}.`);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5);
    const more = problems.length - shown.length;
    return {
      problem: plainSentence`${shown.join(' ')}${more > 0 ? ` And ${more} more ${more === 1 ? 'problem' : 'problems'}.` : ''}`,
    };
  }
  return { stages };
}

/** `Line 3`, `Lines 2 and 5`, `Lines 2, 3 and 5`; past eight, `Lines 1, 2, … 8 and 40 more`. */
function linesNamed(numbers: readonly number[]): string {
  if (numbers.length === 1) return `Line ${numbers[0]}`;
  if (numbers.length > LINES_NAMED)
    return `Lines ${numbers.slice(0, LINES_NAMED).join(', ')} and ${numbers.length - LINES_NAMED} more`;
  return `Lines ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}
/** Line numbers named in one sentence at most (a pasted list of a thousand lines stays one short sentence). */
const LINES_NAMED = 8;

/** The start-bid fields checked: the body to send, or a sentence for each field that is wrong. */
export function checkStartBid(
  fields: StartBidSubmitted,
): { ok: true; stages: StageLine[] } | { ok: false; errors: Record<string, PlainSentence> } {
  const errors: Record<string, PlainSentence> = {};
  const name = fields.name.trim();
  if (isBlank(name)) errors[PipelineIds.nameBlock] = plainSentence`Give the bid a name.`;
  else if (name.length > 200)
    errors[PipelineIds.nameBlock] = plainSentence`A bid’s name holds 200 characters at most.`;
  if (fields.summary.length > 3000)
    errors[PipelineIds.summaryBlock] = plainSentence`The summary holds 3,000 characters at most.`;
  if (!isDay(fields.targetDate))
    errors[PipelineIds.targetBlock] = plainSentence`Pick the date from the calendar.`;
  const stages = parseStageLines(fields.stages);
  if ('problem' in stages) errors[PipelineIds.stagesBlock] = stages.problem;
  if (Object.keys(errors).length > 0 || 'problem' in stages) return { ok: false, errors };
  return { ok: true, stages: stages.stages };
}

/**
 * No date, or a day that exists, as the service takes it (`CalendarDate`): Slack's date picker
 * sends no other, but a forged submission's 2027-02-31 reached the service and came back as its
 * field name under another field.
 */
export function isDay(text: string | null): boolean {
  return text === null || CalendarDate.safeParse(text).success;
}
