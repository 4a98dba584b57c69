"""The MCP server: Engram's use cases as tools for agents (docs/mcp.md).

`tools` defines the tools, `results` what they return, `transports` the two ways to reach them:
stdio (`engram mcp`, one configured scope) and streamable HTTP at /mcp on the API (API keys).
"""
