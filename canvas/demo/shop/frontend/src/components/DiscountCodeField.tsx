import { useState } from "react";

import { applyDiscountCode } from "../api";

/** At checkout: enter a discount code and see the new total. */
export function DiscountCodeField({ subtotal }: { subtotal: string }) {
  const [code, setCode] = useState("");
  const [total, setTotal] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function apply() {
    try {
      setTotal((await applyDiscountCode(code, subtotal)).total);
      setError(null);
    } catch {
      setError("This discount code is not valid.");
    }
  }

  return (
    <div className="discount-code">
      <input value={code} placeholder="Discount code" onChange={(e) => setCode(e.target.value)} />
      <button onClick={apply}>Apply</button>
      {total && <p>New total: {total} EUR</p>}
      {error && <p role="alert">{error}</p>}
    </div>
  );
}
