import { Link } from "react-router-dom";

/** The cart icon in the header with the number of items. */
export function MiniCart({ count = 0 }: { count?: number }) {
  return (
    <Link to="/cart" className="mini-cart">
      Cart ({count})
    </Link>
  );
}
