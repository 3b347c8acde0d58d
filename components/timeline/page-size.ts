/** Turns per page of the timeline, the same for the server's first page and the client's next ones. */
export const TURNS_PER_PAGE = 20;
