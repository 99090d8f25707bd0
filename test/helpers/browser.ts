import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's chromium, installed by .ci/run like redis-server: Playwright never downloads a browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export const browserSkipReason = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (apt-get install chromium)`

/**
 * Headless chromium as this kind of machine runs it: no sandbox (root), and no background
 * networking, whose connections the machine's closed network would refuse.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}
