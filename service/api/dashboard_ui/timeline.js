// Timeline: memories per day, week or month on either clock; a bucket's memories on click,
// paged; superseded memories marked, with what replaced them; what changed (facts started, ended,
// superseded) marked above the buckets it was said in, and listed.
import { graphql, unwrap } from './api.js'
import { $, h, memoryCard } from './dom.js'
import { CHANGES, MEMORIES, TIMELINE } from './queries.js'

const SVG = 'http://www.w3.org/2000/svg'
const CHANGES_SHOWN = 200
let page
let listing = null // { where, after, asOf } of the list shown

export function init (p) {
  page = p
  $('#timeline-bucket').onchange = () => show()
  $('#timeline-clock').onchange = () => show()
  $('#timeline-more').onclick = () => more()
}

export function reset () {
  $('#timeline-chart').replaceChildren()
  $('#timeline-memories').replaceChildren()
  $('#timeline-changes').replaceChildren()
  $('#timeline-more').hidden = true
  listing = null
}

export async function show () {
  if (!page.scope()) return
  const bucket = $('#timeline-bucket').value
  const clock = $('#timeline-clock').value
  try {
    const [data, changed] = await Promise.all([
      graphql(TIMELINE, { scope: page.scope(), bucket, clock }),
      graphql(CHANGES, { scope: page.scope(), limit: CHANGES_SHOWN }),
    ])
    draw(data.timeline, bucket, clock)
    const changes = unwrap(changed.changes, 'ChangeList')
    if (clock === 'SAID') mark(changes.changes, bucket)
    listChanges(changes)
    await list(null, 'All memories, newest first')
  } catch (error) {
    page.fail(error)
  }
}

// The bucket's end: the next day, Monday or first of the month (UTC), as the API buckets.
function bucketEnd (start, bucket) {
  const d = new Date(`${start}T00:00:00Z`)
  if (bucket === 'DAY') d.setUTCDate(d.getUTCDate() + 1)
  else if (bucket === 'WEEK') d.setUTCDate(d.getUTCDate() + 7)
  else d.setUTCMonth(d.getUTCMonth() + 1)
  return d.toISOString()
}

function svg (tag, attributes, text) {
  const element = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, v)
  if (text !== undefined) element.textContent = text
  return element
}

function draw (buckets, bucket, clock) {
  const chart = $('#timeline-chart')
  const width = chart.clientWidth || 900
  const height = 180
  const top = Math.max(1, ...buckets.map(b => b.count))
  const step = buckets.length ? Math.min(60, (width - 20) / buckets.length) : 0
  chart.setAttribute('viewBox', `0 0 ${width} ${height}`)
  chart.replaceChildren(...buckets.flatMap((b, i) => {
    const barHeight = Math.max(2, (b.count / top) * (height - 52)) // room above for marks
    const x = 10 + i * step
    const rect = svg('rect', { x, y: height - 20 - barHeight, width: Math.max(2, step - 4),
      height: barHeight, 'data-bucket': b.bucketStart })
    rect.append(svg('title', {}, `${b.bucketStart}: ${b.count}`))
    rect.onclick = () => {
      chart.querySelectorAll('rect').forEach(r => r.classList.toggle('selected', r === rect))
      const field = clock === 'SAID' ? 'saidAt' : 'happenedStart'
      const where = { [field]: { gte: `${b.bucketStart}T00:00:00Z`, lt: bucketEnd(b.bucketStart, bucket) } }
      list(where, `${b.count} memories ${clock === 'SAID' ? 'said' : 'happened'} ${b.bucketStart}`)
    }
    return [rect,
      svg('text', { x, y: height - 6 }, b.bucketStart.slice(bucket === 'MONTH' ? 0 : 5, bucket === 'MONTH' ? 7 : 10)),
      svg('text', { x, y: height - 24 - barHeight }, String(b.count))]
  }))
}

// The bucket (its start, as the API writes it) an instant falls in, in UTC; weeks from Monday.
function bucketOf (iso, bucket) {
  const d = new Date(iso)
  if (bucket === 'DAY') return d.toISOString().slice(0, 10)
  if (bucket === 'MONTH') return `${d.toISOString().slice(0, 7)}-01`
  const monday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - (d.getUTCDay() + 6) % 7)
  return new Date(monday).toISOString().slice(0, 10)
}

// A mark above each bucket in which changes were said, darker where a fact was replaced or
// ended; its title lists them.
function mark (changes, bucket) {
  const chart = $('#timeline-chart')
  const byBucket = Map.groupBy(changes, c => bucketOf(c.at, bucket))
  for (const [start, found] of byBucket) {
    const bar = chart.querySelector(`rect[data-bucket="${start}"]`)
    if (!bar) continue
    const x = Number(bar.getAttribute('x')) + Number(bar.getAttribute('width')) / 2
    const replaced = found.some(c => c.type !== 'STARTED')
    const dot = svg('circle', { cx: x, cy: 8, r: 5, class: replaced ? 'change-mark replaced' : 'change-mark',
      'data-bucket': start })
    dot.append(svg('title', {}, found.map(c => c.summary).join('\n')))
    chart.append(dot)
  }
}

function listChanges (changes) {
  const more = changes.truncated ? ` (the first ${CHANGES_SHOWN})` : ''
  $('#timeline-changes-title').textContent = changes.changes.length
    ? `What changed${more}` : 'Nothing changed yet'
  $('#timeline-changes').replaceChildren(...changes.changes.map(c =>
    h('li', { class: `change ${c.type.toLowerCase()}` }, c.summary)))
}

async function list (where, title) {
  listing = { where, after: null, asOf: page.asOf() }
  $('#timeline-title').textContent = title
  $('#timeline-memories').replaceChildren()
  await more()
}

async function more () {
  const sort = [{ saidAt: 'DESC' }]
  const asked = listing
  try {
    const data = await graphql(MEMORIES, { scope: page.scope(), where: asked.where, sort,
      after: asked.after, asOf: asked.asOf })
    if (listing !== asked) return // another bucket was clicked meanwhile
    const found = unwrap(data.memories, 'MemoryConnection')
    $('#timeline-memories').append(...found.edges.map(e => memoryCard(e.node, asked.asOf)))
    listing.after = found.pageInfo.endCursor
    $('#timeline-more').hidden = !found.pageInfo.hasNextPage
    $('#timeline-more').textContent = `More (${found.totalCount} in all)`
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}

