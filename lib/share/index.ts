export { ShareLinkStore, migrateShareLinks, SHARE_LINKS_FILE, SHARE_EXPIRIES, type ShareExpiry, type ShareScope, type ShareLink, type PinnedTurn, type CreateShareInput, type UpdateShareInput } from './share-links.js';
export { FileShareIndex, type ShareIndex, type ShareOwnerEntry } from './share-index.js';
export { newShareId, isShareId, SHARE_ID_PATTERN } from './share-id.js';
export { parseSharingMode, mayOpenShares, SHARING_MODES, DEFAULT_SHARING_MODE, type SharingMode } from './sharing-mode.js';
export { shareClock, type Clock } from './clock.js';
export { ShareError, NO_SUCH_LINK } from './errors.js';
