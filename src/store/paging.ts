/** A page request as the platform's list endpoints take it (1-based page). */
export interface PageRequest {
  readonly page: number;
  readonly pageSize: number;
  /** Field to sort by and direction: 1 ascending, -1 descending. */
  readonly sort: { readonly field: string; readonly dir: 1 | -1 };
}

export interface Page<T> {
  readonly items: T[];
  readonly total: number;
}

export const skipOf = (req: PageRequest): number => (req.page - 1) * req.pageSize;
