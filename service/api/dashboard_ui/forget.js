// Forget: the dry run first, then the erasure and its proof. The tab works only on a scope
// the key opened, and the server refuses (Forbidden) any other.
import { graphql, unwrap } from './api.js'
import { $, fill, h } from './dom.js'
import { FORGET } from './queries.js'

let page

export function init (p) {
  page = p
  $('#forget-dry').onclick = () => run(true)
  $('#forget-confirm').onchange = event => { $('#forget-run').disabled = !event.target.checked }
  $('#forget-run').onclick = () => run(false)
}

export function reset () {
  $('#forget-report').replaceChildren()
  $('#forget-confirm').checked = false
  $('#forget-confirm').disabled = true
  $('#forget-run').disabled = true
}

export function show () {}

async function run (dryRun) {
  if (!page.scope()) return
  try {
    const data = await graphql(FORGET, { scope: page.scope(), dryRun })
    const report = unwrap(data.forget, 'ForgetReport')
    const counts = Object.entries(report.counts).map(([k, v]) => `${k}: ${v}`).join('\n')
    fill($('#forget-report'),
      h('h3', {}, dryRun ? 'Would be removed' : 'Removed'),
      h('pre', { class: 'counts' }, counts),
      !dryRun && h('h3', {}, report.verified ? 'Verified: nothing is left' : 'NOT verified'),
      !dryRun && h('pre', { class: 'proof' },
        Object.entries(report.verification || {}).map(([k, v]) => `${k}: ${v}`).join('\n')))
    $('#forget-confirm').disabled = !dryRun // a new dry run before another erasure
    $('#forget-confirm').checked = false
    $('#forget-run').disabled = true
    if (!dryRun) await page.changed()
    page.ok()
  } catch (error) {
    page.fail(error)
  }
}
