/**
 * The sets of tools a session may ask for (docs/adr/0140-toolsets.md): Claude Code's built-ins
 * (`Bash`, `Read`, `Edit`, …) and the Messages API's own client tools (`bash`, the text editor,
 * `memory`). A model should see one set, so the second joins the pool only when asked for.
 */
export const TOOLSETS = ['claude_code', 'anthropic_client'] as const
export type Toolset = (typeof TOOLSETS)[number]

export const DEFAULT_TOOLSETS: readonly Toolset[] = ['claude_code']

/**
 * The versions of Anthropic's text editor; a session offers one (docs/adr/0289): 20250728 and
 * 20250429 share a name, and a model given two editors may call either.
 */
export const TEXT_EDITOR_TYPES = ['text_editor_20250728', 'text_editor_20250429', 'text_editor_20250124'] as const
export type TextEditorType = (typeof TEXT_EDITOR_TYPES)[number]

/** The version the current models take (Claude 4 and later). */
export const DEFAULT_TEXT_EDITOR: TextEditorType = 'text_editor_20250728'
