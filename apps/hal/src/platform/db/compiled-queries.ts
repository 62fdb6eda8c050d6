import { type Compilable, CompiledQuery, type QueryResult } from 'kysely';

/** Something that runs compiled queries: a `Kysely` instance or a transaction. */
export interface QueryRunner {
  executeQuery<R>(query: CompiledQuery<R>): Promise<QueryResult<R>>;
}

type Slot = { arg: number } | { value: unknown };

/** Marks argument `index` while a query shape is compiled; never reaches the database. */
const marker = (index: number) => `\u0000hal-compiled-arg-${index}\u0000`;
const MARKER_PATTERN = /\u0000hal-compiled-arg-(\d+)\u0000/;

/**
 * Starts the SQL text of a compiled shape that may run as a named prepared statement: a PostgreSQL pool opened by
 * `openPostgresDatabase` (with `preparedStatements`) sends such a text as a statement named after its hash, which
 * each connection parses once. A plain SQL comment to the server.
 */
export const PREPARED_STATEMENT_MARK = '/* hal:prepared */ ';

/** Settings of {@link createQueryCache}. */
export interface QueryCacheSettings {
  /** Compile each shape once and bind values afterwards (default true); false builds every query from its values. */
  reuse?: boolean;
  /**
   * Mark each compiled shape's SQL with {@link PREPARED_STATEMENT_MARK} (default false; the stores set it on
   * PostgreSQL). Only reused shapes are marked: their number is bounded by the code, so are the statements.
   */
  prepared?: boolean;
}

/**
 * Kysely builds and compiles a query on every call: for a short query that costs several times what SQLite then
 * spends running it (measured: ~40 µs of building per ~10 µs select). A query cache compiles each named query
 * shape ONCE, from a builder that receives placeholders instead of values, and afterwards only binds the values
 * to the stored SQL. The SQL is still kysely's (same dialect, same quoting). Use it for the few queries on hot
 * paths whose shape never varies; a shape that varies (a dynamic `SET`, an `IN` list) needs one key per variant.
 *
 * Each placeholder must be used as a whole value (`where('id', '=', id)`, a column in `values({...})`), never
 * inside an expression that alters it: compiling fails when a placeholder appears changed.
 *
 * The host owns the switch (`HAL_DATABASE_COMPILED_QUERIES`, default on; `apps/hal/bench/README.md` has what it
 * buys): with `reuse: false` every call builds the query with kysely from its values, as plain kysely code would.
 *
 * @example
 * const queries = createQueryCache();
 * const row = await queries.run(db, 'room by id', (id) => db.selectFrom('ai_rooms').selectAll().where('id', '=', id), [roomId]);
 */
export function createQueryCache(settings: QueryCacheSettings = {}) {
  const reuse = settings.reuse ?? true;
  const mark = settings.prepared ? PREPARED_STATEMENT_MARK : '';
  const shapes = new Map<string, { sql: string; slots: Slot[]; arity: number }>();

  const compileShape = (key: string, build: (...placeholders: string[]) => Compilable, arity: number) => {
    const placeholders = Array.from({ length: arity }, (_, index) => marker(index));
    const { sql, parameters } = build(...placeholders).compile();
    const slots = parameters.map((parameter): Slot => {
      if (typeof parameter === 'string') {
        const match = MARKER_PATTERN.exec(parameter);
        if (match) {
          if (parameter !== marker(Number(match[1]))) {
            throw new Error(`query "${key}": placeholder ${match[1]} is used inside an expression`);
          }
          return { arg: Number(match[1]) };
        }
      }
      return { value: parameter };
    });
    if (MARKER_PATTERN.test(sql)) throw new Error(`query "${key}": a placeholder ended up in the SQL text`);
    const shape = { sql: `${mark}${sql}`, slots, arity };
    shapes.set(key, shape);
    return shape;
  };

  return {
    /**
     * The compiled query for `key` with `args` bound; `build` runs only the first time (with placeholders), and
     * must always build the same shape for the same key.
     */
    compile<R = unknown>(
      key: string,
      build: (...placeholders: string[]) => Compilable<R>,
      args: readonly unknown[],
    ): CompiledQuery<R> {
      if (!reuse) return build(...(args as string[])).compile();
      const shape = shapes.get(key) ?? compileShape(key, build, args.length);
      if (shape.arity !== args.length) {
        throw new Error(`query "${key}": compiled for ${shape.arity} values, given ${args.length}`);
      }
      return CompiledQuery.raw(
        shape.sql,
        shape.slots.map((slot) => ('arg' in slot ? args[slot.arg] : slot.value)),
      ) as CompiledQuery<R>;
    },
    /** Compiles (see `compile`) and runs the query on `runner`; resolves with its rows. */
    async rows<R>(
      runner: QueryRunner,
      key: string,
      build: (...placeholders: string[]) => Compilable<R>,
      args: readonly unknown[],
    ): Promise<R[]> {
      return (await runner.executeQuery(this.compile(key, build, args))).rows;
    },
    /** Compiles and runs the query; resolves with how many rows it changed. */
    async changes(
      runner: QueryRunner,
      key: string,
      build: (...placeholders: string[]) => Compilable,
      args: readonly unknown[],
    ): Promise<number> {
      return Number((await runner.executeQuery(this.compile(key, build, args))).numAffectedRows ?? 0);
    },
    /** How many shapes are compiled (tests). */
    get size() {
      return shapes.size;
    },
  };
}

/** A cache of compiled query shapes (see {@link createQueryCache}). */
export type QueryCache = ReturnType<typeof createQueryCache>;
