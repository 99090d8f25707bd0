/**
 * A JSON answer read back from the wire in a test: its fields are read one by one in assertions,
 * which `expect` checks, so each test need not declare the API's types again.
 */
// biome-ignore lint/suspicious/noExplicitAny: JSON read back from the wire, checked by the assertions
export type WireJson = Record<string, any>
