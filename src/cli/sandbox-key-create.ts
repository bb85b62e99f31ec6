import { SCOPES, type Scope } from '../contract/schemas.ts';
import { openDatabase } from '../service/store/database.ts';
import { DEFAULT_RATE_LIMIT_PER_SECOND, OrganisationsStore } from '../service/store/organisations-store.ts';
import { DEFAULT_SANDBOX_DB, integerOption, UsageError } from './options.ts';

interface KeyArgs {
  values: {
    db?: string;
    org?: string;
    user?: string;
    scopes?: string;
    expires?: string;
    name?: string;
    rate?: string;
  };
  positionals: string[];
}

/** `tenderbot sandbox key create`: the new key is printed once, alone on the last line. */
export async function runSandboxKeyCreate({ values }: KeyArgs): Promise<number> {
  if (!values.org) throw new UsageError('--org is required');
  if (!values.user) throw new UsageError('--user is required');
  if (!values.scopes) throw new UsageError('--scopes is required (comma-separated)');
  const scopes = values.scopes.split(',').map((scope) => scope.trim());
  const unknown = scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0)
    throw new UsageError(`unknown scope ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  let expiresAt: string | null = null;
  if (values.expires) {
    const parsed = Date.parse(
      /^\d{4}-\d{2}-\d{2}$/.test(values.expires) ? `${values.expires}T00:00:00Z` : values.expires,
    );
    if (Number.isNaN(parsed))
      throw new UsageError('--expires must be a date (YYYY-MM-DD) or an ISO 8601 instant');
    expiresAt = new Date(parsed).toISOString();
  }
  const db = openDatabase(values.db ?? DEFAULT_SANDBOX_DB);
  try {
    const organisations = new OrganisationsStore(db);
    if (!organisations.organisationExists(values.org))
      throw new UsageError(`no organisation ${values.org} in the database`);
    if (!organisations.isMember(values.org, values.user)) {
      throw new UsageError(`user ${values.user} is not a member of ${values.org}`);
    }
    const { key } = organisations.createKey({
      name: values.name ?? 'command line',
      organisationId: values.org,
      userId: values.user,
      scopes: scopes as Scope[],
      expiresAt,
      rateLimitPerSecond: integerOption('rate', values.rate, DEFAULT_RATE_LIMIT_PER_SECOND, 1),
    });
    process.stdout.write(
      `Key for ${values.user} in ${values.org} (${scopes.join(', ')}); it is shown only now:\n${key}\n`,
    );
    return 0;
  } finally {
    db.close();
  }
}
