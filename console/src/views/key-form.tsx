import { useState } from 'preact/hooks'
import { keyState } from '../api.js'

/** Asks for an API key: kept for this tab only, sent in the Authorization header. */
export function KeyForm() {
  const [key, setKey] = useState('')
  return (
    <main id="main" class="key-form">
      <h1>toolexec console</h1>
      {keyState.refused() && keyState.hasKey() ? (
        <p class="error" role="alert">
          The service refused that key. Enter another.
        </p>
      ) : (
        <p>This service requires an API key. The console keeps it for this tab only and sends it with each request.</p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (key.trim() !== '') keyState.set(key.trim())
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
          required
        />
        <button type="submit">Open the console</button>
      </form>
    </main>
  )
}
