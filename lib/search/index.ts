export { SearchIndex, SCHEMA_VERSION, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './search-index.js';
export type { IndexState, IndexStatus, SearchHit, SearchOptions, SearchPage, SearchSource } from './search-index.js';
export type { SnippetSegment } from './snippet.js';
export type { DocumentKind } from './documents.js';
export { SearchInputError } from './errors.js';
export { storeSource } from './store-source.js';
export { currentDriver, openSqlite, type SqliteDriver, type SqlDatabase, type SqlRow } from './sqlite.js';
export { MAX_QUERY_CHARS } from './query.js';
