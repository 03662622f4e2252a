export interface Post {
  title: string;
  slug: string;
}

/** makePost makes a post with its URL slug. */
export function makePost(title: string): Post {
  return { title, slug: title };
}
