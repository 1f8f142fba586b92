import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilent } from 'pino';

/**
 * Each request's `request.log`, without a pino child per request: the child
 * (the parent's bindings plus `requestId`) is built by the first line the
 * request logs at an enabled level. Most requests log nothing below `info`, and
 * a pino child is several objects and a bindings string that a held stream
 * would keep for its whole life (docs/performance.md, Memory of held streams).
 */
export class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
  readonly #bindings: Bindings;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger & { isLevelEnabled(level: string): boolean }, bindings: Bindings) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return this.#child === undefined ? this.#parent.isLevelEnabled(level) : (this.#child as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  #write(level: Exclude<LevelWithSilent, 'silent'>, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#logger()[level] as (...line: unknown[]) => void)(...args);
  }

  #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings);
    return this.#child;
  }
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger, unless a route sets its own
 * level or serializers (none does today), which get pino's child at once.
 */
export function requestLoggerFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const parent = logger as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
  if (options.level !== undefined || options.serializers !== undefined || typeof parent.isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new RequestLogger(parent as FastifyBaseLogger & { isLevelEnabled(level: string): boolean }, bindings);
}
