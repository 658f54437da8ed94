"""The operations the CLI, the MCP server and the canvas share: plain functions over a Ctx.

The registry's @command declarations in commands/handlers/ are thin wrappers over these."""
