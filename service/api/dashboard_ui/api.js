// The page's only way to the data: POST /graphql, with the key from sessionStorage when set.
const KEY = 'engram.apiKey'

export const apiKey = {
  get: () => sessionStorage.getItem(KEY) || '',
  set: value => (value ? sessionStorage.setItem(KEY, value) : sessionStorage.removeItem(KEY)),
}

export class ApiError extends Error {}

// Runs one operation; returns `data`, or throws ApiError with the server's message.
export async function graphql (query, variables = {}) {
  const headers = { 'Content-Type': 'application/json' }
  if (apiKey.get()) headers['X-API-Key'] = apiKey.get()
  const response = await fetch('/graphql', {
    method: 'POST', headers, body: JSON.stringify({ query, variables }),
  })
  if (response.status === 401) throw new ApiError('This service needs an API key: enter yours above.')
  const body = await response.json()
  if (body.errors?.length) throw new ApiError([...new Set(body.errors.map(e => e.message))].join('; '))
  return body.data
}

// A union result's value, or ApiError for its typed problems (Forbidden, InvalidInput …).
export function unwrap (result, wanted) {
  if (result.__typename !== wanted) throw new ApiError(result.message || result.__typename)
  return result
}
