import type { ComponentChildren } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { describeError } from '../api.js'
import { onLinkClick } from '../router.js'

export function Link({
  href,
  children,
  class: className,
  current,
}: {
  href: string
  children: ComponentChildren
  class?: string | undefined
  current?: boolean
}) {
  return (
    <a href={href} onClick={onLinkClick} class={className} aria-current={current === true ? 'page' : undefined}>
      {children}
    </a>
  )
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined) return null
  return (
    <p class="error" role="alert">
      {describeError(error)}
    </p>
  )
}

/** One formatter for every time shown: `toLocaleString` builds one per call, which a list of 1,000 runs felt. */
const TIME_FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' })

export function Time({ iso }: { iso: string | undefined }) {
  if (iso === undefined) return <span>—</span>
  return (
    <time dateTime={iso} title={iso}>
      {TIME_FORMAT.format(new Date(iso))}
    </time>
  )
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>
}

/** Loads with `load` now and every `intervalMs` while the page shows it; keeps the last good data. */
export function usePolling<T>(load: () => Promise<T>, intervalMs: number, dependencies: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const loadRef = useRef(load)
  loadRef.current = load
  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = async () => {
      try {
        const next = await loadRef.current()
        if (stopped) return
        setData(next)
        setError(undefined)
      } catch (failure) {
        if (!stopped) setError(failure)
      }
      if (!stopped && intervalMs > 0) timer = setTimeout(tick, intervalMs)
    }
    void tick()
    return () => {
      stopped = true
      clearTimeout(timer)
    }
    // The caller names what restarts the polling.
  }, dependencies)
  return { data, error }
}

/** Moves focus to the page's heading when the page changes, so a screen reader announces it. */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <h1 tabIndex={-1} ref={heading}>
      {children}
    </h1>
  )
}
