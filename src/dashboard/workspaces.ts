import { errors } from '../lib/errors.js';
import type { OrganizationsRepository, WorkspaceRole } from '../storage/organizations-repository.js';
import type { UsersRepository } from '../storage/users-repository.js';
import type { MemberView } from './dashboard-api-types.js';
import { DEFAULT_ACCOUNT_QUOTAS, createQuotaGate, type QuotaGate } from './quotas.js';

export type { WorkspaceRole } from '../storage/organizations-repository.js';

/** A place routers, keys and usage live: a user's own, or an organisation's. Its id is their `owner_id`. */
export interface Workspace {
  readonly id: string;
  readonly name: string;
  readonly kind: 'personal' | 'organization';
  /** The signed-in user's role in it. */
  readonly role: WorkspaceRole;
  /** The owning principal's email in `users` (the admin service finds owners by email). */
  readonly ownerEmail: string;
}

const RANK: Record<WorkspaceRole, number> = { viewer: 0, admin: 1, owner: 2 };
export const WORKSPACE_ROLES: readonly WorkspaceRole[] = ['owner', 'admin', 'viewer'];

/** Who may see and change which workspace; `quota` bounds the organisations one account creates. */
export function createWorkspaces(
  users: UsersRepository,
  organizations: OrganizationsRepository,
  quota: { readonly organizationsPerAccount: number; readonly gate: QuotaGate } = { organizationsPerAccount: DEFAULT_ACCOUNT_QUOTAS.organizationsPerAccount, gate: createQuotaGate() },
) {
  const personal = (id: string, email: string): Workspace => ({ id, name: 'Personal', kind: 'personal', role: 'owner', ownerEmail: email });

  return {
    async listForUser(userId: string, email: string): Promise<Workspace[]> {
      const orgs = await organizations.listForUser(userId);
      const principals = await Promise.all(orgs.map((org) => users.findById(org.id)));
      return [
        personal(userId, email),
        ...orgs.map((org, index): Workspace => ({ id: org.id, name: org.name, kind: 'organization', role: org.role, ownerEmail: principals[index]?.email ?? '' })),
      ];
    },

    /**
     * The workspace if the user may act in it with at least `minimum`; 404 when
     * they are not a member (its existence is not revealed), 403 when their role is too low.
     */
    async access(userId: string, workspaceId: string, minimum: WorkspaceRole = 'viewer'): Promise<Workspace> {
      let workspace: Workspace | undefined;
      if (workspaceId === userId) {
        const user = await users.findById(userId);
        if (user !== undefined) workspace = personal(user.id, user.email);
      } else if (workspaceId.startsWith('org_') && workspaceId.length <= 64) {
        const [role, org, principal] = await Promise.all([organizations.roleOf(workspaceId, userId), organizations.find(workspaceId), users.findById(workspaceId)]);
        if (role !== undefined && org !== undefined && principal !== undefined) {
          workspace = { id: org.id, name: org.name, kind: 'organization', role, ownerEmail: principal.email };
        }
      }
      if (workspace === undefined) throw errors.workspaceNotFound();
      if (RANK[workspace.role] < RANK[minimum]) throw errors.workspaceRoleRequired(minimum === 'admin' ? 'admin or owner' : minimum);
      return workspace;
    },

    async createOrganization(userId: string, name: string): Promise<Workspace> {
      const trimmed = name.trim();
      if (trimmed === '' || trimmed.length > 100) throw errors.invalidRequest('An organisation needs a name of 1 to 100 characters.', 'name');
      const org = await quota.gate({
        subject: `organizations:${userId}`,
        noun: 'organisations',
        holder: 'Your account',
        limit: quota.organizationsPerAccount,
        count: () => organizations.countCreatedBy(userId),
        create: () => organizations.create(trimmed, userId),
      });
      const principal = await users.findById(org.id);
      return { id: org.id, name: org.name, kind: 'organization', role: 'owner', ownerEmail: principal?.email ?? '' };
    },

    async listMembers(workspace: Workspace, self: { id: string; email: string; createdAt: number }): Promise<MemberView[]> {
      if (workspace.kind === 'personal') return [{ userId: self.id, email: self.email, role: 'owner' as const, addedAt: self.createdAt }];
      return organizations.listMembers(workspace.id);
    },

    async addMember(workspace: Workspace, email: string, role: WorkspaceRole): Promise<MemberView> {
      if (workspace.kind === 'personal') throw errors.personalWorkspace();
      // Accounts exist only for confirmed addresses (accounts.ts): someone who signed up with this address but never
      // confirmed it has none, and cannot be added.
      const user = await users.findByEmail(email.trim());
      if (user === undefined || user.id.startsWith('org_')) throw errors.dashboardNotFound('user_not_found', 'No account has this email: ask them to sign up (and confirm their address) first.', 'email');
      if ((await organizations.roleOf(workspace.id, user.id)) !== undefined) {
        throw errors.dashboardConflict('member_exists', `${user.email} is already a member of this organisation.`);
      }
      const addedAt = await organizations.addMember(workspace.id, user.id, role);
      return { userId: user.id, email: user.email, role, addedAt };
    },

    async changeRole(workspace: Workspace, userId: string, role: WorkspaceRole): Promise<MemberView> {
      const member = await findMember(workspace, userId);
      if (member.role === 'owner' && role !== 'owner') await requireAnotherOwner(workspace);
      await organizations.setRole(workspace.id, userId, role);
      return { ...member, role };
    },

    async removeMember(workspace: Workspace, userId: string): Promise<void> {
      const member = await findMember(workspace, userId);
      if (member.role === 'owner') await requireAnotherOwner(workspace);
      await organizations.removeMember(workspace.id, userId);
    },
  };

  async function findMember(workspace: Workspace, userId: string) {
    const members = workspace.kind === 'personal' ? [] : await organizations.listMembers(workspace.id);
    const member = members.find((candidate) => candidate.userId === userId);
    if (member === undefined) throw errors.dashboardNotFound('member_not_found', 'No such member in this workspace.');
    return member;
  }

  async function requireAnotherOwner(workspace: Workspace): Promise<void> {
    const owners = (await organizations.listMembers(workspace.id)).filter((member) => member.role === 'owner');
    if (owners.length <= 1) throw errors.dashboardConflict('last_owner', 'An organisation needs at least one owner: make someone else owner first.');
  }
}

export type Workspaces = ReturnType<typeof createWorkspaces>;
