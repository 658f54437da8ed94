"""Agent setup: an MCP entry and an instruction block for each common agent client."""
