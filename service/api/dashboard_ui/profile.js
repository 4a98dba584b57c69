// The entity view's profile panel: what the scope knows of the entity, by kind (works at, lives
// in, likes …, job, favourites), each fact with since when, inferred or stated, and its memories.
import { graphql, unwrap } from './api.js'
import { $, fill, h, when } from './dom.js'
import { PROFILE } from './queries.js'

// The panel for `name`, filled once its profile arrives (unless another entity was opened).
export function profilePanel (page, name) {
  const box = h('div', { id: 'entity-profile', 'data-name': name }, h('p', { class: 'muted' }, 'Loading…'))
  load(page, name)
  return box
}

async function load (page, name) {
  try {
    const data = await graphql(PROFILE, { scope: page.scope(), entity: name, asOf: page.asOf() })
    const profile = unwrap(data.profile, 'Profile')
    const box = $('#entity-profile')
    if (!box || box.dataset.name !== name) return
    fill(box, profile.groups.length
      ? h('dl', { class: 'profile' }, profile.groups.flatMap(group => [
        h('dt', {}, group.label),
        ...group.facts.map(fact => h('dd', { class: 'fact', 'data-kind': group.kind }, factLine(fact)))]))
      : h('p', { class: 'muted' }, 'No facts known then.'))
    box.dataset.state = 'done'
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}

function factLine (fact) {
  const memories = fact.evidenceCount === 1 ? '1 memory' : `${fact.evidenceCount} memories`
  return [
    h('span', { class: 'value' }, fact.detail ? `${fact.detail}: ${fact.value}` : fact.value),
    h('span', { class: 'muted' }, ` since ${when(fact.since).slice(0, 10)}`),
    fact.inferred && h('span', { class: 'badge inferred' },
      `inferred${fact.confidence === null ? '' : ` ${Math.round(fact.confidence * 100)}%`}`),
    h('details', { class: 'evidence' }, h('summary', {}, memories),
      h('ul', {}, fact.evidence.map(m => h('li', {}, m.text,
        h('span', { class: 'muted' }, ` — ${when(m.saidAt)}`))))),
  ]
}
