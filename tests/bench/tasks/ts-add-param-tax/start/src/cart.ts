import { Item, total } from "./price";

export interface Cart {
  items: Item[];
  taxRate: number;
}

/** checkout says what is due. */
export function checkout(cart: Cart): string {
  return `due: ${total(cart.items).toFixed(2)}`;
}
