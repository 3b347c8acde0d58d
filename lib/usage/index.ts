export { UsageRollups, FEED_CONSUMER, type UsageRollupsOptions } from './usage-rollups.js';
export { DEFAULT_PRICES, DEFAULTS_FROM, isRealDay, PRICES_FILE, PriceBook, PriceError, priceSchema, readPrices, setPrice, writePrices, type Price } from './prices.js';
export { periodOf, sessionFigures, summarize, USAGE_BY, USAGE_SPLITS, type UsageBy, type UsageFigures, type UsageQuery, type UsageRow, type UsageSession, type UsageSource, type UsageSplit, type UsageSummary } from './summary.js';
export { addExchange, createSchema, type CountedExchange } from './usage-file.js';
export { dayOf } from './exchange-of-message.js';
