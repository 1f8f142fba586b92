import type { BrowserContext } from 'playwright-core';

/** Every Content-Security-Policy violation the pages of the watched browser contexts met. */
export interface CspWatch {
  /** One line per violation: the directive, what was blocked and a sample; or Chromium's console error. */
  readonly violations: readonly string[];
  /** Watches the pages `context` opens from now on. */
  watch(context: BrowserContext): Promise<void>;
}

/**
 * Listens for the `securitypolicyviolation` event in every page (from before the app's own scripts run) and for
 * Chromium's console errors about the policy, so a browser test fails when the dashboard's CSP blocks anything the
 * app does (an inline style without the nonce, a source the policy does not list).
 */
export function createCspWatch(): CspWatch {
  const violations: string[] = [];
  return {
    violations,
    async watch(context) {
      await context.exposeBinding('__modelportCspViolation', (_source, line: string) => {
        violations.push(line);
      });
      // A string: the test's tsconfig has no DOM types.
      await context.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
        window.__modelportCspViolation(event.effectiveDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber + ' ' + (event.sample || ''));
      }, true);`);
      context.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(`console: ${message.text()}`);
      });
    },
  };
}
