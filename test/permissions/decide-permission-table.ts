// The case table behind the decide-permission-*.test.ts files: one row per decision, run on a
// real workspace (test/permissions/permission-fixtures.ts), split by rule tier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PreToolUseOutcome } from '../../src/executor/hook-runner.js'
import { decidePermission } from '../../src/permissions/decide-permission.js'
import { createPermissionContext, type PermissionMode } from '../../src/tool/permission-context.js'
import type { AnyTool } from '../../src/tool/tool.js'
import type { TestWorkspace } from '../helpers/tool-context.js'
import { createWorkspace, makeContext } from './permission-fixtures.js'

export type PermissionCase = {
  name: string
  tool: AnyTool
  /** Strings may use {CWD}, {OUTSIDE}, {EXTRA}, {BLOBS}. */
  input: Record<string, string>
  allow?: string[]
  deny?: string[]
  ask?: string[]
  session?: { allow?: string[]; deny?: string[]; ask?: string[] }
  mode?: PermissionMode
  bypassUnavailable?: boolean
  avoidPrompts?: boolean
  hook?: PreToolUseOutcome
  expected: 'allow' | 'deny' | 'ask'
  message?: string | RegExp
}

export const bash = (command: string) => ({ command })
export const file = (filePath: string) => ({ file_path: filePath })
export const TEST_PREFIX = ['Bash(npm run test:*)']
export const RM = ['Bash(rm:*)']

/** The permission workspace for the current file, made before its tests and removed after. */
export function usePermissionWorkspace(): () => TestWorkspace {
  let workspace: TestWorkspace | undefined
  beforeAll(async () => {
    workspace = await createWorkspace()
  })
  afterAll(() => workspace?.cleanup())
  return () => {
    if (!workspace) throw new Error('the permission workspace exists only inside tests')
    return workspace
  }
}

/** Runs every row through decidePermission; `minimum` keeps rows from being lost unnoticed. */
export function describePermissionTable(title: string, cases: PermissionCase[], minimum: number): void {
  const current = usePermissionWorkspace()
  const fill = (text: string): string => {
    const workspace = current()
    return text
      .replaceAll('{OUTSIDE}', workspace.outside)
      .replaceAll('{EXTRA}', workspace.extra)
      .replaceAll('{BLOBS}', workspace.blobRoot)
      .replaceAll('{CWD}', workspace.cwd)
  }

  describe(title, () => {
    it(`has a table of at least ${minimum} cases`, () => {
      expect(cases.length).toBeGreaterThanOrEqual(minimum)
    })

    it.each(cases)('$name → $expected', async (testCase) => {
      const permissionContext = createPermissionContext({
        mode: testCase.mode ?? 'default',
        additionalWorkingDirectories: [current().extra],
        alwaysAllowRules: {
          operatorSettings: (testCase.allow ?? []).map(fill),
          session: testCase.session?.allow ?? [],
        },
        alwaysDenyRules: { operatorSettings: (testCase.deny ?? []).map(fill), session: testCase.session?.deny ?? [] },
        alwaysAskRules: { operatorSettings: (testCase.ask ?? []).map(fill), session: testCase.session?.ask ?? [] },
        isBypassPermissionsModeAvailable: !testCase.bypassUnavailable,
        ...(testCase.avoidPrompts ? { shouldAvoidPermissionPrompts: true } : {}),
      })
      const input = Object.fromEntries(Object.entries(testCase.input).map(([key, value]) => [key, fill(value)]))
      const decision = await decidePermission({
        tool: testCase.tool,
        input,
        context: makeContext(current(), permissionContext),
        hookOutcome: testCase.hook ?? {},
      })
      expect(decision.behavior).toBe(testCase.expected)
      if (testCase.message !== undefined && decision.behavior !== 'allow') {
        if (typeof testCase.message === 'string') expect(decision.message).toBe(testCase.message)
        else expect(decision.message).toMatch(testCase.message)
      }
    })
  })
}
