// A small element builder and the formats every view shares.

// h('li', {class: 'x', onclick}, 'text', child …): attributes starting with "on" are listeners.
export function h (tag, attributes = {}, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value)
    else element.setAttribute(name, value === true ? '' : value)
  }
  element.append(...children.flat().filter(c => c !== null && c !== undefined && c !== false))
  return element
}

export const $ = selector => document.querySelector(selector)

// The element's children replaced; false, null and undefined (a condition not met) left out.
export function fill (element, ...children) {
  element.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined && c !== false))
}

// "2024-03-02 08:30" in UTC, which is how the API buckets and compares.
export function when (iso) {
  return iso ? iso.replace('T', ' ').slice(0, 16) : '—'
}

export function happened (memory) {
  if (!memory.validFrom) return 'unknown'
  const to = memory.validTo ? ` – ${when(memory.validTo)}` : ''
  return `${when(memory.validFrom)}${to}${memory.timeGranularity ? ` (${memory.timeGranularity})` : ''}`
}

// One memory as a card: text, speaker, both clocks, and what replaced it when superseded.
// At `asOf` (ISO text or null: now) a fact replaced only later stood then: not struck through.
export function memoryCard (memory, asOf, ...extra) {
  const replaced = Boolean(memory.invalidatedAt)
  const stood = replaced && asOf && Date.parse(memory.invalidatedAt) > Date.parse(asOf)
  return h('li', { class: replaced && !stood ? 'memory superseded' : 'memory', 'data-id': memory.id },
    h('div', { class: 'text' }, memory.text),
    h('div', { class: 'meta' },
      h('span', { class: 'badge' }, memory.speaker || 'unknown speaker'),
      ` said ${when(memory.saidAt)} · happened ${happened(memory)}`),
    replaced && h('div', { class: 'meta replaced' },
      h('span', { class: 'badge old' }, stood ? 'superseded later' : 'superseded'),
      ` ${when(memory.invalidatedAt)} by: `,
      (memory.supersededBy || []).map(m => h('q', {}, m.text))),
    ...extra)
}
