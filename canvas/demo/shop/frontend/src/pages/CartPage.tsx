/** The cart page with quantity editing. */
export function CartPage() {
  return (
    <main>
      <h1>Your cart</h1>
    </main>
  );
}
