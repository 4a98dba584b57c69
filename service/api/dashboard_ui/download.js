// Download: the open scope as an export file (docs/export.md). GraphQL's `export` answers the
// counts and the link; the file comes from that link with the same key, and the browser saves it.
import { ApiError, apiKey, graphql, unwrap } from './api.js'
import { $, h } from './dom.js'
import { EXPORT } from './queries.js'

let page

export function init (p) {
  page = p
  $('#download').onclick = download
}

// A new scope: nothing downloaded from it yet.
export function reset () {
  $('#download-status').textContent = ''
}

async function download () {
  if (!page.scope()) return
  $('#download').disabled = true
  try {
    const data = await graphql(EXPORT, { scope: page.scope() })
    const link = unwrap(data.export, 'ScopeExport')
    const headers = apiKey.get() ? { 'X-API-Key': apiKey.get() } : {}
    const response = await fetch(link.url, { headers })
    if (!response.ok) throw new ApiError(`download refused (${response.status}): ${await response.text()}`)
    const url = URL.createObjectURL(await response.blob())
    const anchor = h('a', { href: url, download: link.filename })
    document.body.append(anchor)
    anchor.click()
    anchor.remove()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
    const c = link.counts
    $('#download-status').textContent = `${link.filename}: ${c.memories} memories, ` +
      `${c.messages} messages, ${c.entities} entities, ${c.relations} relations`
    page.ok()
  } catch (error) {
    page.fail(error)
  } finally {
    $('#download').disabled = false
  }
}
