// Timeline: memories per day, week or month on either clock; a bucket's memories on click,
// paged; superseded memories marked, with what replaced them.
import { graphql, unwrap } from './api.js'
import { $, memoryCard } from './dom.js'
import { MEMORIES, TIMELINE } from './queries.js'

const SVG = 'http://www.w3.org/2000/svg'
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
  $('#timeline-more').hidden = true
  listing = null
}

export async function show () {
  if (!page.scope()) return
  const bucket = $('#timeline-bucket').value
  const clock = $('#timeline-clock').value
  try {
    const data = await graphql(TIMELINE, { scope: page.scope(), bucket, clock })
    draw(data.timeline, bucket, clock)
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
    const barHeight = Math.max(2, (b.count / top) * (height - 40))
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

