// A thin client for the Shop API.

export interface Product {
  id: number;
  slug: string;
  name: string;
  category: string;
  price: string;
  stock: number;
}

async function call<T>(path: string, init?: RequestInit): Promise<T> {
  const answer = await fetch(`/api${path}`, init);
  if (!answer.ok) throw new Error(`${answer.status} ${answer.statusText}`);
  return answer.json() as Promise<T>;
}

export const fetchAutocomplete = (q: string) =>
  call<string[]>(`/search/autocomplete?q=${encodeURIComponent(q)}`);
export const fetchWishlist = (userId: number) => call<Product[]>(`/wishlist?user_id=${userId}`);
export const saveToWishlist = (userId: number, productId: number) =>
  call<number[]>(`/wishlist/${productId}?user_id=${userId}`, { method: "POST" });
export const signUpForNewsletter = (email: string) =>
  call<{ status: string }>(`/newsletter/signup?email=${encodeURIComponent(email)}`, { method: "POST" });
export const applyDiscountCode = (code: string, subtotal: string) =>
  call<{ discount: string; total: string }>(
    `/checkout/discount-code?code=${encodeURIComponent(code)}&subtotal=${subtotal}`,
    { method: "POST" },
  );
