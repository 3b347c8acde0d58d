// registry/ still imports the atomic write from here (its files are frozen while it is
// optimised); the one implementation is lib/fs/atomic-write.ts.
export * from '../../fs/atomic-write.js';
