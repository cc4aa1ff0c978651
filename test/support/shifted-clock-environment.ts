/**
 * A jest environment whose clock runs ahead of the real one, as a process's under harness/shifted-clock.mjs: the
 * test's context (its code and the product's modules it loads) reads a `Date` moved by `offsetMs`, given in the test
 * file's docblock (`@jest-environment-options {"offsetMs": 172800000}`), while PostgreSQL and the chains keep the real
 * clock. For what must hold when the product's clock and its database's disagree.
 */
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { TestEnvironment } from 'jest-environment-node';
import { shiftedDate } from '../../harness/shifted-date.cjs';

export default class ShiftedClockEnvironment extends TestEnvironment {
  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    const offsetMs = Number(config.projectConfig.testEnvironmentOptions.offsetMs);
    if (!Number.isFinite(offsetMs)) throw new Error('shifted-clock-environment: give offsetMs in @jest-environment-options');
    this.global.Date = shiftedDate(this.global.Date as DateConstructor, offsetMs);
  }
}
