// How long `vi.waitFor` waits for effects of real processes a test cannot await (child MCP servers,
// killed process groups): generous, because the machine running the suite may be loaded.
export const REAL_PROCESS_WAIT = { timeout: 10_000, interval: 25 }
