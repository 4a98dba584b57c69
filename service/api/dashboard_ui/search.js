// Search: free text with time phrases ("last month", "上个月") on either clock, at asOf; each
// hit with its evidence: retrievers, matched entities, graph path, source messages.
import { graphql, unwrap } from './api.js'
import { $, h, memoryCard, when } from './dom.js'
import { SEARCH } from './queries.js'

let page
let searches = 0 // the latest search's number: an older answer arriving late is dropped

export function init (p) {
  page = p
  $('#search-form').onsubmit = event => { event.preventDefault(); run() }
}

export function reset () {
  $('#search-hits').replaceChildren()
}

export function show () {
  if ($('#search-query').value.trim()) run()
}

async function run () {
  const q = $('#search-query').value.trim()
  if (!q || !page.scope()) return
  const clock = document.querySelector('input[name=clock]:checked').value
  const list = $('#search-hits')
  list.dataset.state = 'loading'
  const asked = ++searches
  try {
    const data = await graphql(SEARCH, { q, scope: page.scope(), when: { clock }, asOf: page.asOf() })
    if (asked !== searches) return
    const hits = unwrap(data.search, 'SearchHits').hits
    list.replaceChildren(...(hits.length ? hits.map(hitCard) : [h('li', {}, 'No memories found.')]))
    page.ok()
  } catch (error) {
    list.replaceChildren()
    page.fail(error)
  }
  list.dataset.state = 'done'
}

function hitCard (hit) {
  const found = hit.retrievers.map(r =>
    h('tr', {}, h('td', {}, r.retriever), h('td', {}, String(r.rank)), h('td', {}, r.score.toFixed(3))))
  return memoryCard(hit.memory, page.asOf(),
    h('div', { class: 'meta' }, `score ${hit.score.toFixed(3)} · `,
      hit.entities.map(e => h('span', { class: 'badge' }, `${e.name} · ${e.type}`))),
    h('table', { class: 'retrievers' },
      h('tr', {}, h('th', {}, 'retriever'), h('th', {}, 'rank'), h('th', {}, 'score')), found),
    hit.matchedEntities.length > 0 &&
      h('div', { class: 'meta' }, 'matched entities: ', hit.matchedEntities.join(', ')),
    hit.path.length > 0 && h('div', { class: 'meta path' }, 'graph path: ', hit.path.join(' → ')),
    h('details', { class: 'sources' },
      h('summary', {}, `source messages (${hit.sources.length})`),
      hit.sources.map(s => h('div', { class: 'source' },
        h('div', {}, s.text),
        h('div', { class: 'meta' }, `${s.speaker || 'unknown'} · ${when(s.saidAt)}` +
          (s.sessionId ? ` · session ${s.sessionId}` : '') +
          (s.externalId ? ` · message ${s.externalId}` : ''))))))
}
