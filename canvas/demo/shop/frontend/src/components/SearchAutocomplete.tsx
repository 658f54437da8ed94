import { useEffect, useState } from "react";

import { fetchAutocomplete } from "../api";

/** The search box in the header: suggests product names as the customer types. */
export function SearchAutocomplete() {
  const [query, setQuery] = useState("");
  const [suggestions, setSuggestions] = useState<string[]>([]);

  useEffect(() => {
    if (query.trim().length < 2) {
      setSuggestions([]);
      return;
    }
    const timer = setTimeout(() => fetchAutocomplete(query).then(setSuggestions), 150);
    return () => clearTimeout(timer);
  }, [query]);

  return (
    <div className="search">
      <input type="search" value={query} placeholder="Search products" onChange={(e) => setQuery(e.target.value)} />
      {suggestions.length > 0 && (
        <ul role="listbox">
          {suggestions.map((name) => (
            <li key={name} role="option" onClick={() => setQuery(name)}>
              {name}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
