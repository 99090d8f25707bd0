/** The input as the person edited it: a JSON object, or the reason it is not one. */
export function parseEditedInput(text: string): { input: Record<string, unknown> } | { error: string } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { error: `The input is not valid JSON: ${error instanceof Error ? error.message : String(error)}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { error: 'The input must be a JSON object, as the tool receives it' }
  return { input: value as Record<string, unknown> }
}
