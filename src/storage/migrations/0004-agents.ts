import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Agents (docs/agents.md): each owner's agents by slug, every saved version of
 * their definition, and every execution with its steps. Executions keep the
 * agent's name and version, so they stay readable after the agent changes or goes.
 */
export const agentsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('agents')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull().references('users.id'))
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('description', 'text', (column) => column.notNull())
      .addColumn('version', 'integer', (column) => column.notNull())
      // The current version's definition, JSON.
      .addColumn('definition', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    // One live agent per name and owner; a deleted one frees its name.
    await db.schema
      .createIndex('agents_owner_name_live')
      .on('agents')
      .columns(['owner_id', 'name'])
      .unique()
      .where(sql.ref('deleted_at'), 'is', null)
      .execute();

    await db.schema
      .createTable('agent_versions')
      .addColumn('agent_id', 'text', (column) => column.notNull().references('agents.id'))
      .addColumn('version', 'integer', (column) => column.notNull())
      .addColumn('definition', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('agent_versions_pkey', ['agent_id', 'version'])
      .execute();

    await db.schema
      .createTable('agent_executions')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('agent_id', 'text', (column) => column.notNull())
      .addColumn('agent_name', 'text', (column) => column.notNull())
      .addColumn('agent_version', 'integer', (column) => column.notNull())
      .addColumn('key_id', 'text')
      // running, succeeded or failed.
      .addColumn('status', 'text', (column) => column.notNull())
      .addColumn('streamed', 'integer', (column) => column.notNull())
      .addColumn('input', 'text', (column) => column.notNull())
      .addColumn('output', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('steps_executed', 'integer', (column) => column.notNull())
      .addColumn('total_cost_usd', 'double precision', (column) => column.notNull())
      .addColumn('total_latency_ms', 'double precision', (column) => column.notNull())
      .addColumn('total_carbon_grams', 'double precision', (column) => column.notNull())
      .addColumn('prompt_tokens', 'integer', (column) => column.notNull())
      .addColumn('completion_tokens', 'integer', (column) => column.notNull())
      // JSON array of provider:model ids, in order of first use.
      .addColumn('models_used', 'text', (column) => column.notNull())
      .addColumn('started_at', 'bigint', (column) => column.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('agent_executions_owner_agent_started').on('agent_executions').columns(['owner_id', 'agent_id', 'started_at']).execute();

    await db.schema
      .createTable('agent_execution_steps')
      .addColumn('execution_id', 'text', (column) => column.notNull().references('agent_executions.id'))
      .addColumn('name', 'text', (column) => column.notNull())
      // The step's position in the definition.
      .addColumn('position', 'integer', (column) => column.notNull())
      // succeeded, failed or cancelled.
      .addColumn('status', 'text', (column) => column.notNull())
      .addColumn('router_id', 'text')
      .addColumn('model', 'text')
      .addColumn('attempts', 'integer', (column) => column.notNull())
      .addColumn('prompt_tokens', 'integer', (column) => column.notNull())
      .addColumn('completion_tokens', 'integer', (column) => column.notNull())
      .addColumn('cost_usd', 'double precision', (column) => column.notNull())
      .addColumn('latency_ms', 'double precision', (column) => column.notNull())
      .addColumn('carbon_grams', 'double precision', (column) => column.notNull())
      .addColumn('output', 'text')
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('started_at', 'bigint', (column) => column.notNull())
      .addColumn('finished_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('agent_execution_steps_pkey', ['execution_id', 'name'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('agent_execution_steps').execute();
    await db.schema.dropTable('agent_executions').execute();
    await db.schema.dropTable('agent_versions').execute();
    await db.schema.dropTable('agents').execute();
  },
};
