/**
 * The worker's activities, built from their dependencies (production injects real services, tests inject
 * local ones). Each activity group adds its factory here as the product grows.
 */

/** Everything activities need from the outside world. */
export type ActivityDependencies = Record<string, never>;

/** Builds the activities object registered with the worker. */
export function createActivities(_deps: ActivityDependencies): Record<string, (...args: never[]) => Promise<unknown>> {
  return {};
}
