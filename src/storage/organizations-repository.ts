import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import type { Database } from './schema.js';

export type WorkspaceRole = 'owner' | 'admin' | 'viewer';

export interface OrganizationRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: number;
}

export interface MemberRecord {
  readonly userId: string;
  readonly email: string;
  readonly role: WorkspaceRole;
  readonly addedAt: number;
}

/** Where an organisation's principal row in `users` gets its (never deliverable) email. */
export const ORGANIZATION_EMAIL_DOMAIN = 'organizations.invalid';
/** The principal row's password hash: not `scrypt$…`, so verifyPassword refuses every password. */
const NO_PASSWORD = 'organization-principal';

/**
 * Organisations and their members. An organisation is also a principal row in
 * `users` (same id), so it can own routers, keys and usage records exactly as a user does.
 */
export function createOrganizationsRepository(db: Kysely<Database>, now: () => number) {
  return {
    async create(name: string, creatorId: string): Promise<OrganizationRecord> {
      const id = createId('org', 16);
      const time = now();
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values({ id, email: `${id.toLowerCase()}@${ORGANIZATION_EMAIL_DOMAIN}`, password_hash: NO_PASSWORD, created_at: time }).execute();
        await trx.insertInto('organizations').values({ id, name, created_by: creatorId, created_at: time }).execute();
        await trx.insertInto('organization_members').values({ organization_id: id, user_id: creatorId, role: 'owner', created_at: time }).execute();
      });
      return { id, name, createdAt: time };
    },
    /** Organisations this user created, whoever owns them now (what the organisation quota counts). */
    async countCreatedBy(userId: string): Promise<number> {
      const row = await db.selectFrom('organizations').select((eb) => eb.fn.countAll<number>().as('n')).where('created_by', '=', userId).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async find(id: string): Promise<OrganizationRecord | undefined> {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : { id: row.id, name: row.name, createdAt: row.created_at };
    },
    /** The organisations a user belongs to, with their role, by name. */
    async listForUser(userId: string): Promise<Array<OrganizationRecord & { role: WorkspaceRole }>> {
      const rows = await db
        .selectFrom('organization_members')
        .innerJoin('organizations', 'organizations.id', 'organization_members.organization_id')
        .select(['organizations.id', 'organizations.name', 'organizations.created_at', 'organization_members.role'])
        .where('organization_members.user_id', '=', userId)
        .orderBy('organizations.name')
        .execute();
      return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at, role: row.role as WorkspaceRole }));
    },
    async roleOf(organizationId: string, userId: string): Promise<WorkspaceRole | undefined> {
      const row = await db
        .selectFrom('organization_members')
        .select('role')
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return row?.role as WorkspaceRole | undefined;
    },
    async listMembers(organizationId: string): Promise<MemberRecord[]> {
      const rows = await db
        .selectFrom('organization_members')
        .innerJoin('users', 'users.id', 'organization_members.user_id')
        .select(['users.id', 'users.email', 'organization_members.role', 'organization_members.created_at'])
        .where('organization_members.organization_id', '=', organizationId)
        .orderBy('organization_members.created_at')
        .execute();
      return rows.map((row) => ({ userId: row.id, email: row.email, role: row.role as WorkspaceRole, addedAt: row.created_at }));
    },
    async addMember(organizationId: string, userId: string, role: WorkspaceRole): Promise<number> {
      const time = now();
      await db.insertInto('organization_members').values({ organization_id: organizationId, user_id: userId, role, created_at: time }).execute();
      return time;
    },
    async setRole(organizationId: string, userId: string, role: WorkspaceRole): Promise<boolean> {
      const result = await db
        .updateTable('organization_members')
        .set({ role })
        .where('organization_id', '=', organizationId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async removeMember(organizationId: string, userId: string): Promise<boolean> {
      const result = await db.deleteFrom('organization_members').where('organization_id', '=', organizationId).where('user_id', '=', userId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type OrganizationsRepository = ReturnType<typeof createOrganizationsRepository>;
