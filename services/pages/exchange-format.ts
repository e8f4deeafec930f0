/** How an exchange's status and URL are shown, shared by the server-rendered run page and the live view. */
export const statusClass = (status: number): 'ok' | 'redirect' | 'bad' =>
  status < 300 ? 'ok' : status < 400 ? 'redirect' : 'bad';

/** The path and query of a URL (the origin is the same for every exchange of a run). */
export const pathOf = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
};
