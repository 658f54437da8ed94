import { useEffect, useState } from "react";

import { Product, fetchWishlist } from "../api";

/** The customer's wishlist: the products saved for later. */
export function WishlistPage({ userId = 1 }: { userId?: number }) {
  const [saved, setSaved] = useState<Product[]>([]);
  useEffect(() => {
    fetchWishlist(userId).then(setSaved);
  }, [userId]);
  return (
    <main>
      <h1>Wishlist</h1>
      <ul>
        {saved.map((p) => (
          <li key={p.id}>{p.name}</li>
        ))}
      </ul>
    </main>
  );
}
