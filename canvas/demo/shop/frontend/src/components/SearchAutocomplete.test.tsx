import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { SearchAutocomplete } from "./SearchAutocomplete";

describe("SearchAutocomplete", () => {
  it("renders the search box", () => {
    render(<SearchAutocomplete />);
    expect(screen.getByPlaceholderText("Search products")).toBeTruthy();
  });
});
