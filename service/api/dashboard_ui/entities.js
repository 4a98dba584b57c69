// Entities: a paged list, a graph that opens on the busiest entities and expands one hop at a
// click (bounded), typed relations labelled, the memories behind an edge, and a path finder.
import cytoscape from '/dashboard-assets/vendor/cytoscape.esm.min.mjs'
import { graphql, unwrap } from './api.js'
import { $, fill, h, when } from './dom.js'
import { profilePanel } from './profile.js'
import { BUSIEST, ENTITIES, ENTITY, PATH } from './queries.js'

const NEIGHBOURS_PER_HOP = 12
const BUSIEST_FIRST = 15 // the opening graph: the most mentioned entities
const MAX_NODES = 150 // a hub's neighbourhood in a 100k-memory scope stays drawable
const COLOURS = { PERSON: '#1f6feb', ORG: '#7a5af8', PLACE: '#12b76a', EVENT: '#f79009' }

let page
let graph = null
let listAfter = null
let drawing = 0 // bumped when the user starts a graph of their own: a late opening graph yields

export function init (p) {
  page = p
  $('#entity-form').onsubmit = event => { event.preventDefault(); loadList(true) }
  $('#entity-more').onclick = () => loadList(false)
  $('#path-form').onsubmit = event => { event.preventDefault(); findPath() }
}

export function reset () {
  $('#entity-list').replaceChildren()
  $('#entity-detail').replaceChildren()
  $('#path-result').replaceChildren()
  graph?.elements().remove()
  listAfter = null
  drawing++
}

export function show () {
  if (!graph) graph = makeGraph()
  if (!$('#entity-list').children.length) loadList(true)
  if (graph.elements().empty()) overview()
}

function makeGraph () {
  const cy = cytoscape({
    container: $('#graph'),
    wheelSensitivity: 0.3,
    minZoom: 0.2,
    maxZoom: 1.5, // a few nodes stay at reading size
    style: [
      { selector: 'node', style: { label: 'data(id)', 'background-color': 'data(colour)',
        'font-size': 11, 'text-valign': 'bottom', 'text-margin-y': 3, width: 22, height: 22 } },
      { selector: 'node.expanded', style: { 'border-width': 3, 'border-color': '#101828' } },
      { selector: 'edge', style: { label: 'data(label)', 'font-size': 9, width: 1.5,
        'curve-style': 'bezier', 'line-color': '#98a2b3', 'text-rotation': 'autorotate',
        'text-background-color': '#fff', 'text-background-opacity': 0.8 } },
      { selector: 'edge.typed', style: { 'line-color': '#475467', 'target-arrow-shape': 'triangle',
        'target-arrow-color': '#475467', width: 2 } },
      { selector: 'node.path', style: { 'border-color': '#f79009', 'border-width': 4 } },
      { selector: 'edge.path', style: { 'line-color': '#f79009', 'target-arrow-color': '#f79009',
        width: 3 } },
    ],
  })
  cy.on('tap', 'node', event => expand(event.target.id()))
  cy.on('tap', 'edge', event => showEdge(event.target.data()))
  window.engramGraph = cy // for the browser console (and the tests)
  return cy
}

async function loadList (fresh) {
  if (!page.scope()) return
  if (fresh) { listAfter = null; $('#entity-list').replaceChildren() }
  const filter = $('#entity-filter').value.trim()
  const where = filter ? { name: { contains: filter } } : null
  try {
    const data = await graphql(ENTITIES, { scope: page.scope(), where, after: listAfter })
    const found = unwrap(data.entities, 'EntityConnection')
    $('#entity-list').append(...found.edges.map(({ node }) => h('li', {},
      h('button', { class: 'entity', onclick: () => { drawing++; graph.elements().remove(); expand(node.name) } },
        node.name), h('span', { class: 'muted' }, ` ${node.type} · ${node.mentionCount}`))))
    listAfter = found.pageInfo.endCursor
    $('#entity-more').hidden = !found.pageInfo.hasNextPage
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}

function addNode (entity) {
  if (graph.getElementById(entity.name).nonempty()) return true
  if (graph.nodes().length >= MAX_NODES) return false
  graph.add({ data: { id: entity.name, type: entity.type, colour: COLOURS[entity.type] || '#667085' } })
  return true
}

// The scope's most mentioned entities and the links among them: what the view opens on.
async function overview () {
  const mine = ++drawing
  try {
    const data = await graphql(BUSIEST, { scope: page.scope(), first: BUSIEST_FIRST, asOf: page.asOf() })
    const found = unwrap(data.entities, 'EntityConnection')
    if (mine !== drawing) return
    found.edges.forEach(({ node }) => addNode(node))
    const typed = new Set()
    for (const l of found.links.filter(l => l.kind !== 'MENTIONED_WITH')) {
      typed.add([l.source.name, l.target.name].sort().join('|'))
      addEdge(typedId(l.source.name, l.kind, l.target.name), l.source.name, l.target.name, l.kind, 'typed')
    }
    for (const l of found.links.filter(l => l.kind === 'MENTIONED_WITH')) {
      const pair = [l.source.name, l.target.name].sort().join('|')
      if (!typed.has(pair)) addEdge(`co:${pair}`, l.source.name, l.target.name, `co-mentioned ×${l.support}`, 'co')
    }
    graph.layout({ name: 'cose', animate: false, nodeDimensionsIncludeLabels: true }).run()
    fill($('#entity-detail'), h('h3', {}, 'Most mentioned'),
      h('p', { class: 'muted', id: 'overview-note' }, `The ${found.edges.length} most mentioned ` +
        'entities and how they are linked. Click one to open its neighbourhood.'))
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}

// One id per typed relation, whichever query drew it, so that it is drawn once.
function typedId (source, type, target) {
  return `rel:${source}|${type}|${target}`
}

function addEdge (id, source, target, label, classes, memories = null) {
  const drawn = graph.getElementById(id)
  if (drawn.nonempty()) { if (memories) drawn.data('memories', memories); return }
  if (graph.getElementById(source).empty() || graph.getElementById(target).empty()) return
  graph.add({ data: { id, source, target, label, memories }, classes })
}

// One hop out of `name`: its neighbours, typed relations as arrows, co-mentions as lines.
export async function expand (name) {
  try {
    const data = await graphql(ENTITY, { name, scope: page.scope(), limit: NEIGHBOURS_PER_HOP,
      asOf: page.asOf() })
    const entity = unwrap(data.entity, 'Entity')
    addNode(entity)
    let dropped = 0
    for (const n of entity.neighbors) {
      if (!addNode(n.entity)) { dropped++; continue }
      if (!n.relations.length) {
        const pair = [entity.name, n.entity.name].sort()
        addEdge(`co:${pair.join('|')}`, entity.name, n.entity.name,
          `co-mentioned ×${n.support}`, 'co')
      }
    }
    for (const r of entity.relations) {
      if (!addNode(r.source) || !addNode(r.target)) { dropped++; continue }
      addEdge(typedId(r.source.name, r.type, r.target.name), r.source.name, r.target.name, r.type,
        'typed', r.memories)
    }
    graph.getElementById(entity.name).addClass('expanded')
    graph.layout({ name: 'cose', animate: false, randomize: false, nodeDimensionsIncludeLabels: true }).run()
    detail(entity, dropped)
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}

function detail (entity, dropped) {
  const memoryItems = memories => memories.map(m =>
    h('li', { class: 'memory' }, m.text, h('span', { class: 'muted' }, ` — ${m.speaker || '?'}, ${when(m.saidAt)}`)))
  const aliases = entity.aliases.filter(a => a !== entity.name)
  fill($('#entity-detail'),
    h('h3', {}, entity.name, h('span', { class: 'muted' }, ` ${entity.type}`)),
    h('div', { class: 'meta' }, `${entity.mentionCount} mentions · seen ${when(entity.firstSeen)} – ` +
      `${when(entity.lastSeen)}`, aliases.length ? ` · also ${aliases.join(', ')}` : ''),
    dropped > 0 && h('div', { class: 'meta' }, `${dropped} more not drawn: the graph holds ${MAX_NODES} entities`),
    h('h4', {}, 'Profile'),
    profilePanel(page, entity.name),
    h('h4', {}, 'Relations'),
    h('ul', { id: 'entity-relations' }, entity.relations.map(r =>
      h('li', { class: 'relation' }, `${r.source.name} ${r.type} ${r.target.name}`,
        r.validTo ? h('span', { class: 'muted' }, ` (until ${when(r.validTo)})`) : ''))),
    h('h4', {}, 'Neighbours'),
    h('ul', {}, entity.neighbors.map(n => h('li', {},
      h('button', { class: 'link expand', 'data-name': n.entity.name, onclick: () => expand(n.entity.name) },
        n.entity.name),
      h('span', { class: 'muted' }, ` ${n.relations.join(', ') || 'co-mentioned'} · ${n.support} memories`)))),
    h('h4', {}, 'Memories'),
    h('ul', {}, memoryItems(entity.memories)))
}

// The memories behind an edge: a typed relation carries them; a co-mention asks `path`.
async function showEdge (edge) {
  let memories = edge.memories
  try {
    if (!memories) {
      const data = await graphql(PATH, { from: edge.source, to: edge.target, scope: page.scope(),
        maxHops: 1, asOf: page.asOf() })
      memories = unwrap(data.path, 'EntityPath').steps.flatMap(s => s.memories)
    }
    $('#entity-detail').replaceChildren(
      h('h3', {}, `${edge.source} — ${edge.label} — ${edge.target}`),
      h('ul', { id: 'edge-memories' }, memories.map(m =>
        h('li', { class: 'memory' }, m.text, h('span', { class: 'muted' }, ` — ${when(m.saidAt)}`)))))
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}

async function findPath () {
  const from = $('#path-from').value.trim()
  const to = $('#path-to').value.trim()
  if (!from || !to || !page.scope()) return
  const out = $('#path-result')
  try {
    const data = await graphql(PATH, { from, to, scope: page.scope(), maxHops: 3, asOf: page.asOf() })
    const path = unwrap(data.path, 'EntityPath')
    graph.elements().removeClass('path')
    path.entities.forEach(e => { addNode(e); graph.getElementById(e.name).addClass('path') })
    out.replaceChildren(...path.steps.map((s, i) => {
      const [a, b] = s.forward ? [s.from.name, s.to.name] : [s.to.name, s.from.name]
      addEdge(`path:${a}|${b}|${s.kind}`, a, b, s.kind, s.kind === 'MENTIONED_WITH' ? 'co' : 'typed')
      graph.edges().filter(e => e.source().id() === a && e.target().id() === b).addClass('path')
      return h('div', { class: 'step' },
        h('strong', {}, `${i + 1}. ${s.from.name} —${s.kind}${s.forward ? '→' : '←'} ${s.to.name}`),
        h('ul', {}, s.memories.map(m => h('li', {}, m.text))))
    }))
    graph.layout({ name: 'cose', animate: false, nodeDimensionsIncludeLabels: true }).run()
    page.ok()
  } catch (error) {
    out.replaceChildren(h('p', { class: 'muted' }, error.message))
  }
}
