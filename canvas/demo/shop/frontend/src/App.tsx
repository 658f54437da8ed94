import { BrowserRouter, Route, Routes } from "react-router-dom";

import { CartPage } from "./pages/CartPage";
import { WishlistPage } from "./pages/WishlistPage";
import { MiniCart } from "./components/MiniCart";
import { SearchAutocomplete } from "./components/SearchAutocomplete";
import { NewsletterSignup } from "./components/NewsletterSignup";

export default function App() {
  return (
    <BrowserRouter>
      <header>
        <SearchAutocomplete />
        <MiniCart />
      </header>
      <Routes>
        <Route path="/cart" element={<CartPage />} />
        <Route path="/wishlist" element={<WishlistPage />} />
      </Routes>
      <footer>
        <NewsletterSignup />
      </footer>
    </BrowserRouter>
  );
}
