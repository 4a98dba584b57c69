// Every GraphQL operation the page sends: nothing here the public API does not answer.
const PROBLEMS = `... on InvalidInput { message } ... on Forbidden { message }
  ... on DatabaseUnavailable { message }`
const MEMORY = `id text speaker saidAt validFrom validTo timeGranularity invalidatedAt
  supersededBy { id text saidAt }`

export const PICKER = `query Picker { viewer { principal userIds agentIds runIds }
  scopes(first: 100) { userId agentId runId memories lastSaidAt } }`

export const STATS = `query Stats($scope: ScopeInput!) {
  stats(scope: $scope) { memories currentMemories superseded messages entities firstSaidAt lastSaidAt }
  entityTypeCounts(scope: $scope) { type count } }`

export const SEARCH = `query Search($q: String!, $scope: ScopeInput!, $when: TimeFilterInput,
    $asOf: DateTime) {
  search(query: $q, scope: $scope, limit: 20, when: $when, asOf: $asOf) { __typename
    ... on SearchHits { hits { score memory { ${MEMORY} } retrievers { retriever rank score }
      matchedEntities path entities { name type }
      sources { id externalId text speaker saidAt sessionId } } }
    ${PROBLEMS} } }`

export const MEMORIES = `query Memories($scope: ScopeInput!, $where: MemoryWhereInput,
    $sort: [MemorySortInput!], $after: String, $asOf: DateTime) {
  memories(scope: $scope, where: $where, sort: $sort, first: 20, after: $after, asOf: $asOf) {
    __typename
    ... on MemoryConnection { totalCount pageInfo { hasNextPage endCursor }
      edges { node { ${MEMORY} } } }
    ${PROBLEMS} } }`

export const TIMELINE = `query Timeline($scope: ScopeInput!, $bucket: Bucket!, $clock: Clock!) {
  timeline(scope: $scope, bucket: $bucket, clock: $clock) { bucketStart count } }`

export const ENTITIES = `query Entities($scope: ScopeInput!, $where: EntityWhereInput,
    $after: String) {
  entities(scope: $scope, where: $where, sort: [{mentionCount: DESC}], first: 20, after: $after) {
    __typename
    ... on EntityConnection { totalCount pageInfo { hasNextPage endCursor }
      edges { node { name type mentionCount } } }
    ${PROBLEMS} } }`

// The entity view's opening graph: the most mentioned entities and how they are linked.
export const BUSIEST = `query Busiest($scope: ScopeInput!, $first: Int!, $asOf: DateTime) {
  entities(scope: $scope, sort: [{mentionCount: DESC}], first: $first) { __typename
    ... on EntityConnection { edges { node { name type mentionCount } }
      links(asOf: $asOf) { source { name } target { name } kind support } }
    ${PROBLEMS} } }`

export const ENTITY = `query Entity($name: String!, $scope: ScopeInput!, $limit: Int!,
    $asOf: DateTime) {
  entity(name: $name, scope: $scope) { __typename
    ... on Entity { name type aliases mentionCount firstSeen lastSeen
      memories(limit: 10, asOf: $asOf) { id text speaker saidAt }
      neighbors(hops: 1, limit: $limit) { entity { name type mentionCount } support relations }
      relations(first: 50, asOf: $asOf) { id type source { name } target { name }
        validFrom validTo memories { id text speaker saidAt } } }
    ... on NotFound { message } ${PROBLEMS} } }`

export const PATH = `query Path($from: String!, $to: String!, $scope: ScopeInput!,
    $maxHops: Int!, $asOf: DateTime) {
  path(from: $from, to: $to, scope: $scope, maxHops: $maxHops, asOf: $asOf) { __typename
    ... on EntityPath { entities { name type }
      steps { from { name } to { name } kind forward memories { id text speaker saidAt } } }
    ... on NotFound { message } ${PROBLEMS} } }`

export const FORGET = `mutation Forget($scope: ScopeInput!, $dryRun: Boolean!) {
  forget(scope: $scope, dryRun: $dryRun) { __typename
    ... on ForgetReport { dryRun forgetEvents verified
      counts { messages memories entities mentions derivedFrom supersedes eventsRedacted readEvents }
      verification { nodesLeft textsLeft fulltextHits entityHits vectorHits } }
    ... on NotFound { message } ${PROBLEMS} } }`

// The entity view's profile panel: the entity's facts by kind, as of the asOf box.
export const PROFILE = `query Profile($scope: ScopeInput!, $entity: String!, $asOf: DateTime) {
  profile(scope: $scope, entity: $entity, asOf: $asOf) { __typename
    ... on Profile { groups { kind label facts { value detail since inferred confidence
      evidenceCount evidence { id text saidAt } } } }
    ... on NotFound { message } ${PROBLEMS} } }`

// The timeline's marks: what started, ended or was superseded, oldest first.
export const CHANGES = `query Changes($scope: ScopeInput!, $limit: Int!) {
  changes(scope: $scope, limit: $limit) { __typename
    ... on ChangeList { truncated changes { type kind at summary } }
    ${PROBLEMS} } }`

// The open scope's export: its counts and the link that downloads it (download.js).
export const EXPORT = `query Export($scope: ScopeInput!) {
  export(scope: $scope) { __typename
    ... on ScopeExport { url filename counts { messages memories entities relations } }
    ${PROBLEMS} } }`
