import { randomUUID } from 'node:crypto';
import type {
  Pipeline,
  PipelineListItem,
  PipelineQuery,
  Stage,
  UpdatePipelineBody,
  UpdateStageBody,
} from '../../contract/schemas.ts';
import type { SqliteDatabase } from './database.ts';
import { type Page, wordsOf } from './public-records-reader.ts';
import { StatementCache } from './statement-cache.ts';

export type PipelinePermission = 'view' | 'edit';

interface PipelineRow {
  id: string;
  name: string;
  summary: string | null;
  status: Pipeline['status'];
  target_submission_date: string | null;
  tender_id: string | null;
  owner_id: string;
  owner_name: string;
  archived: number;
  created_at: string;
  updated_at: string;
  pending: number;
  in_progress: number;
  blocked: number;
  completed: number;
}

interface StageRow {
  id: string;
  position: number;
  name: string;
  description: string | null;
  expected_duration_days: number | null;
  status: Stage['status'];
  notes: string | null;
  due_date: string | null;
}

export interface NewPipeline {
  id?: string;
  organisationId: string;
  ownerId: string;
  name: string;
  summary: string | null;
  status?: Pipeline['status'];
  targetSubmissionDate: string | null;
  tenderId: string | null;
  archived?: boolean;
  stages: {
    name: string;
    description?: string | null;
    expectedDurationDays?: number | null;
    status?: Stage['status'];
    notes?: string | null;
    dueDate?: string | null;
  }[];
  members?: { userId: string; permission: PipelinePermission }[];
}

const PIPELINE_SELECT = `SELECT p.id, p.name, p.summary, p.status, p.target_submission_date, p.tender_id, p.owner_id,
  u.name AS owner_name, p.archived, p.created_at, p.updated_at,
  (SELECT count(*) FROM stages s WHERE s.pipeline_id = p.id AND s.status = 'pending') AS pending,
  (SELECT count(*) FROM stages s WHERE s.pipeline_id = p.id AND s.status = 'in_progress') AS in_progress,
  (SELECT count(*) FROM stages s WHERE s.pipeline_id = p.id AND s.status = 'blocked') AS blocked,
  (SELECT count(*) FROM stages s WHERE s.pipeline_id = p.id AND s.status = 'completed') AS completed
  FROM pipelines p JOIN users u ON u.id = p.owner_id`;

/** Who may see a pipeline: its owner and the users it is shared with. An organisation role alone gives nothing. */
const VISIBLE_TO_USER = `(p.owner_id = @userId OR EXISTS (
  SELECT 1 FROM pipeline_members pm WHERE pm.pipeline_id = p.id AND pm.user_id = @userId))`;

/** Bid pipelines and their stages. Access is decided per user; see `permissionOf`. */
export class PipelinesStore {
  private readonly statements: StatementCache;

  constructor(db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  /** The user's permission on a pipeline of the organisation, or null when they may not see it. */
  permissionOf(organisationId: string, pipelineId: string, userId: string): PipelinePermission | null {
    const row = this.statements.get<{ owner_id: string; permission: PipelinePermission | null }>(
      `SELECT p.owner_id, pm.permission FROM pipelines p
       LEFT JOIN pipeline_members pm ON pm.pipeline_id = p.id AND pm.user_id = @userId
       WHERE p.id = @pipelineId AND p.organisation_id = @organisationId`,
      { organisationId, pipelineId, userId },
    );
    if (!row) return null;
    if (row.owner_id === userId) return 'edit';
    return row.permission;
  }

  /** Newest first. */
  list(organisationId: string, userId: string, query: PipelineQuery): Page<PipelineListItem> {
    const conditions = ['p.organisation_id = @organisationId', VISIBLE_TO_USER];
    const params: Record<string, unknown> = {
      organisationId,
      userId,
      limit: query.limit,
      offset: query.offset,
    };
    if (query.archived !== 'all') conditions.push(`p.archived = ${query.archived === 'archived' ? 1 : 0}`);
    if (query.status) {
      conditions.push('p.status = @status');
      params.status = query.status;
    }
    wordsOf(query.q).forEach((text, index) => {
      // Each word matches the start of a word in the name or summary, as the other `q` filters do.
      const word = text.toLowerCase();
      conditions.push(
        `(' ' || lower(p.name) || ' ' || lower(coalesce(p.summary, ''))) LIKE @word${index} ESCAPE '\\'`,
      );
      params[`word${index}`] = `% ${escapeLike(word)}%`;
    });
    const where = conditions.join(' AND ');
    const rows = this.statements.all<PipelineRow>(
      `${PIPELINE_SELECT} WHERE ${where} ORDER BY p.seq DESC LIMIT @limit OFFSET @offset`,
      params,
    );
    const total =
      this.statements.get<{ total: number }>(
        `SELECT count(*) AS total FROM pipelines p WHERE ${where}`,
        params,
      )?.total ?? 0;
    return { items: rows.map(pipelineListItemFromRow), total };
  }

  get(organisationId: string, id: string): Pipeline | null {
    const row = this.statements.get<PipelineRow>(
      `${PIPELINE_SELECT} WHERE p.organisation_id = ? AND p.id = ?`,
      [organisationId, id],
    );
    if (!row) return null;
    const { stageCounts: _counts, ...fields } = pipelineListItemFromRow(row);
    return { ...fields, stages: this.stagesOf(id) };
  }

  create(pipeline: NewPipeline, now: string): string {
    const id = pipeline.id ?? randomUUID();
    this.statements.run(
      `INSERT INTO pipelines (id, organisation_id, owner_id, name, summary, status, target_submission_date, tender_id,
         archived, created_at, updated_at)
       VALUES (@id, @organisationId, @ownerId, @name, @summary, @status, @targetSubmissionDate, @tenderId, @archived, @now, @now)`,
      {
        id,
        organisationId: pipeline.organisationId,
        ownerId: pipeline.ownerId,
        name: pipeline.name,
        summary: pipeline.summary,
        status: pipeline.status ?? 'draft',
        targetSubmissionDate: pipeline.targetSubmissionDate,
        tenderId: pipeline.tenderId,
        archived: pipeline.archived ? 1 : 0,
        now,
      },
    );
    pipeline.stages.forEach((stage, position) => {
      this.statements.run(
        `INSERT INTO stages (id, pipeline_id, position, name, description, expected_duration_days, status, notes, due_date)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          randomUUID(),
          id,
          position + 1,
          stage.name,
          stage.description ?? null,
          stage.expectedDurationDays ?? null,
          stage.status ?? 'pending',
          stage.notes ?? null,
          stage.dueDate ?? null,
        ],
      );
    });
    for (const member of pipeline.members ?? []) {
      this.statements.run(
        'INSERT INTO pipeline_members (pipeline_id, user_id, permission) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        [id, member.userId, member.permission],
      );
    }
    return id;
  }

  exists(id: string): boolean {
    return this.statements.get('SELECT 1 FROM pipelines WHERE id = ?', [id]) !== undefined;
  }

  update(id: string, changes: UpdatePipelineBody, now: string): void {
    const columns: Record<keyof UpdatePipelineBody, string> = {
      name: 'name',
      summary: 'summary',
      status: 'status',
      targetSubmissionDate: 'target_submission_date',
    };
    this.updateColumns('pipelines', id, columns, changes, now);
  }

  setArchived(id: string, archived: boolean, now: string): void {
    this.statements.run(
      'UPDATE pipelines SET archived = ?, updated_at = CASE WHEN archived = ? THEN updated_at ELSE ? END WHERE id = ?',
      [archived ? 1 : 0, archived ? 1 : 0, now, id],
    );
  }

  getStage(pipelineId: string, stageId: string): Stage | null {
    const row = this.statements.get<StageRow>('SELECT * FROM stages WHERE pipeline_id = ? AND id = ?', [
      pipelineId,
      stageId,
    ]);
    return row ? stageFromRow(row) : null;
  }

  updateStage(pipelineId: string, stageId: string, changes: UpdateStageBody, now: string): void {
    const columns: Record<keyof UpdateStageBody, string> = {
      status: 'status',
      name: 'name',
      notes: 'notes',
      dueDate: 'due_date',
    };
    this.updateColumns('stages', stageId, columns, changes);
    this.statements.run('UPDATE pipelines SET updated_at = ? WHERE id = ?', [now, pipelineId]);
  }

  private stagesOf(pipelineId: string): Stage[] {
    return this.statements
      .all<StageRow>('SELECT * FROM stages WHERE pipeline_id = ? ORDER BY position, seq', [pipelineId])
      .map(stageFromRow);
  }

  private updateColumns<T extends object>(
    table: 'pipelines' | 'stages',
    id: string,
    columns: Record<keyof T, string>,
    changes: T,
    now?: string,
  ): void {
    const assignments: string[] = [];
    const params: Record<string, unknown> = { id };
    for (const [field, column] of Object.entries(columns) as [string, string][]) {
      const value = (changes as Record<string, unknown>)[field];
      if (value === undefined) continue;
      assignments.push(`${column} = @${field}`);
      params[field] = value;
    }
    if (now) {
      assignments.push('updated_at = @now');
      params.now = now;
    }
    if (assignments.length === 0) return;
    this.statements.run(`UPDATE ${table} SET ${assignments.join(', ')} WHERE id = @id`, params);
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

function pipelineListItemFromRow(row: PipelineRow): PipelineListItem {
  return {
    id: row.id,
    name: row.name,
    summary: row.summary,
    status: row.status,
    targetSubmissionDate: row.target_submission_date,
    tenderId: row.tender_id,
    owner: { id: row.owner_id, name: row.owner_name },
    archived: row.archived === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    stageCounts: {
      pending: row.pending,
      in_progress: row.in_progress,
      blocked: row.blocked,
      completed: row.completed,
    },
  };
}

function stageFromRow(row: StageRow): Stage {
  return {
    id: row.id,
    position: row.position,
    name: row.name,
    description: row.description,
    expectedDurationDays: row.expected_duration_days,
    status: row.status,
    notes: row.notes,
    dueDate: row.due_date,
  };
}
