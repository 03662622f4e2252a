export interface Item {
  price: number;
  qty: number;
}

/** total is the sum of price × qty. */
export function total(items: Item[]): number {
  return items.reduce((sum, i) => sum + i.price * i.qty, 0);
}
